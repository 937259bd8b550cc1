// slice: DALI's N-D slice (dali/operators/generic/slice/slice_attr.h). The window comes from the
// named arguments start|rel_start and end|rel_end|shape|rel_shape (per sample, one value per axis
// listed by axes/axis_names), or from two extra inputs, anchor and shape (normalized_anchor /
// normalized_shape say whether float values are fractions of the extent; integer inputs are always
// absolute). anchor = llround(start), end = llround(end) (DALI's rounding, the end rounded on its
// own so neighbouring slices tile); out_of_bounds_policy decides what happens outside the input.
#include <cmath>

#include "kernels/crop/crop_window.h"
#include "operators/slice/slice_pad_util.h"
#include "operators/slice/slice_window.h"
#include "operators/crop/crop_args.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class SliceOp : public Operator {
 public:
  explicit SliceOp(const OpSpec& spec)
      : Operator(spec),
        policy_(ReadOutOfBoundsPolicy(*this)),
        fill_(Arg<std::vector<double>>("fill_values")),
        window_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    window_.Prepare(ws, 1);
    out_type_ = HasArg("dtype") ? Arg<DType>("dtype") : in.dtype();
    specs_.assign(static_cast<size_t>(n), {});
    OutputDesc d;
    d.dtype = out_type_;
    d.layout = in.layout();
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      const int ndim = s.ndim();
      const std::vector<int> axes = Axes(in.layout(), ndim);
      kernels::SliceSpec& sp = specs_[static_cast<size_t>(i)];
      sp.in_shape = s.to_vector();
      sp.anchor.assign(static_cast<size_t>(ndim), 0);
      sp.out_shape = sp.in_shape;
      std::string window_arg;
      for (size_t a = 0; a < axes.size(); ++a) {
        const auto dim = static_cast<size_t>(axes[a]);
        const double extent = static_cast<double>(s[axes[a]]);
        double start, end;
        window_.Resolve(ws, i, axes.size(), a, extent, start, end, window_arg);
        sp.anchor[dim] = std::llround(start);
        sp.out_shape[dim] = std::llround(end) - sp.anchor[dim];
      }
      ApplyPolicy(sp, i, window_arg);
      sp.channel_dim = ChannelDim(in.layout(), ndim, sp, i);
      d.shapes.push_back(TensorShape(sp.out_shape));
    }
    // A window of whole rows of the outermost dimension, of the same type, is one run of the
    // input's bytes: every sample then views its input (no copy).
    views_ = out_type_ == in.dtype();
    for (int i = 0; i < n && views_; ++i) views_ = OuterWindow(specs_[static_cast<size_t>(i)]);
    d.contiguous = !views_ && AllSameShape(d.shapes);
    d.views = views_;
    return {d};
  }

  void Run(Workspace& ws) override {
    if (!views_) return Operator::Run(ws);
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    for (int i = 0; i < in.num_samples(); ++i) {
      const kernels::SliceSpec& sp = specs_[static_cast<size_t>(i)];
      const int64_t rows = sp.in_shape.empty() ? 0 : sp.in_shape[0];
      const size_t row_bytes = rows ? in.sample_bytes(i) / static_cast<size_t>(rows) : 0;
      out.ShareSample(i, in, i, static_cast<size_t>(sp.anchor.empty() ? 0 : sp.anchor[0]) * row_bytes);
    }
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    RunSlicePad(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), out_type_,
                specs_[static_cast<size_t>(i)], fill_);
  }

 private:
  // DALI: axis_names (default "WH") unless only axes is given. Without a layout, and axis_names
  // not given, the axes argument (default [1, 0]) is used.
  std::vector<int> Axes(const std::string& layout, int ndim) const {
    if (HasArg("axis_names") || (!HasArg("axes") && !layout.empty()))
      return AxesFromNames(*this, "axis_names", Arg<std::string>("axis_names"), layout);
    return NormalizeAxes(*this, "axes", Arg<std::vector<int>>("axes"), ndim);
  }

  void ApplyPolicy(kernels::SliceSpec& sp, int i, const std::string& window_arg) const {
    for (size_t d = 0; d < sp.in_shape.size(); ++d) {
      const int64_t lo = sp.anchor[d], hi = sp.anchor[d] + sp.out_shape[d], m = sp.in_shape[d];
      if (lo >= 0 && hi <= m) continue;
      if (policy_ == kernels::OutOfBoundsPolicy::kError)
        ThrowPerSample(window_arg, i, "the slice [" + std::to_string(lo) + ", " + std::to_string(hi) + ") of dimension " +
                                          std::to_string(d) + " is outside the input's extent " + std::to_string(m) +
                                          " (out_of_bounds_policy=\"error\"; use \"pad\" or \"trim_to_shape\")");
      if (policy_ == kernels::OutOfBoundsPolicy::kTrim) {
        const int64_t a = std::clamp<int64_t>(lo, 0, m), b = std::clamp<int64_t>(hi, a, m);
        sp.anchor[d] = a;
        sp.out_shape[d] = b - a;
      }
    }
  }

  // The dimension fill_values vary along (only padding uses them): the layout's 'C' when more than
  // one value is given.
  int ChannelDim(const std::string& layout, int ndim, const kernels::SliceSpec& sp, int i) const {
    if (fill_.size() <= 1 || policy_ != kernels::OutOfBoundsPolicy::kPad) return -1;
    const auto c = layout.find('C');
    if (c == std::string::npos || static_cast<int>(layout.size()) != ndim)
      ThrowArgError("fill_values", "several fill values need a channel dimension 'C' in the layout, got layout '" + layout + "'");
    if (sp.out_shape[c] != static_cast<int64_t>(fill_.size()))
      ThrowPerSample("fill_values", i, "got " + std::to_string(fill_.size()) + " values for " +
                                           std::to_string(sp.out_shape[c]) + " channels (give one, or one per channel)");
    return static_cast<int>(c);
  }

  // The window keeps every dimension but the outermost whole and stays inside the input there.
  static bool OuterWindow(const kernels::SliceSpec& sp) {
    if (sp.in_shape.empty()) return false;
    for (size_t d = 0; d < sp.in_shape.size(); ++d) {
      const int64_t lo = sp.anchor[d], len = sp.out_shape[d], m = sp.in_shape[d];
      if (d == 0 ? (lo < 0 || len < 0 || lo + len > m) : (lo != 0 || len != m)) return false;
    }
    return true;
  }

  kernels::OutOfBoundsPolicy policy_;
  std::vector<double> fill_;
  SliceWindowArgs window_;
  DType out_type_ = DType::kUInt8;
  std::vector<kernels::SliceSpec> specs_;
  bool views_ = false;  // this batch's samples are views (OuterWindow for every sample)
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterSlice) {
  OpSchema s("slice");
  s.Doc("Extracts an N-D slice. The window is given by named arguments (start or rel_start, with end, rel_end, shape "
        "or rel_shape; one value per axis of axes/axis_names, per sample) or by the anchor and shape inputs. Any layout "
        "and any number of dimensions.")
      .Input("data", "Tensors of any type and rank.")
      .Input("anchor", "Start of the slice, one value per sliced axis (float: see normalized_anchor; integer: absolute).")
      .Input("shape_input", "Shape of the slice, one value per sliced axis (float: see normalized_shape; integer: absolute).")
      .OptionalInputs(2)
      .Output("output", "The slices.")
      .Arg("start", ArgType::kFloatList, std::vector<double>{}, "Slice start coordinates (absolute), per axis.", true)
      .Arg("rel_start", ArgType::kFloatList, std::vector<double>{}, "Slice start coordinates (fractions of the extent).", true)
      .Arg("end", ArgType::kFloatList, std::vector<double>{}, "Slice end coordinates (absolute, exclusive).", true)
      .Arg("rel_end", ArgType::kFloatList, std::vector<double>{}, "Slice end coordinates (fractions of the extent).", true)
      .Arg("shape", ArgType::kFloatList, std::vector<double>{}, "Slice shape (absolute).", true)
      .Min(0)
      .Arg("rel_shape", ArgType::kFloatList, std::vector<double>{}, "Slice shape (fractions of the extent).", true)
      .Min(0)
      .Exclusive({"start", "rel_start"})
      .Exclusive({"end", "rel_end", "shape", "rel_shape"})
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
           "Dimension indices the slice arguments refer to, in their order (negative: from the back). Used when "
           "axis_names is not given.")
      .Arg("axis_names", ArgType::kString, std::string("WH"),
           "Dimension names (letters of the input's layout) the slice arguments refer to; wins over axes.")
      .Layout()
      .Arg("normalized_anchor", ArgType::kBool, true, "A float anchor input is a fraction of the extent.")
      .Arg("normalized_shape", ArgType::kBool, true, "A float shape input is a fraction of the extent.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A window outside the input: error, pad (with fill_values) or trim_to_shape.")
      .Enum({"error", "pad", "trim_to_shape"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0},
           "Padding value(s): one for every element, or one per channel (the layout's 'C').")
      .Arg("dtype", ArgType::kDType, std::string("uint8"), "Output type: uint8, float16 or float32 (default: the input's).")
      .Enum({"uint8", "float16", "float32"})
      .Factory("cpu", MakeFactory<SliceOp>());
  s.RetiredArg("image_type").RenamedArg("output_dtype", "dtype");  // deprecated in DALI 0.24
  r.Register(std::move(s));
}

}  // namespace sluice
