// erase: DALI's region erasing (dali/operators/erase/erase_utils.h). anchor and shape list the
// coordinates of the axes named by axis_names (or the indices in axes; neither given: every axis
// but 'C'), region after region: anchor = (y0, x0, y1, x1, ...), shape = (h0, w0, h1, w1, ...).
// Unlisted axes cover their whole extent. For each listed axis, with normalized_* the values are
// fractions of the extent; with centered_anchor the anchor is the region's centre; the region is
// [trunc(anchor), trunc(anchor + shape)) clipped to the tensor (DALI truncates). fill_value: one
// value, or one per channel (needs a 'C' axis). anchor and shape may be per sample (1-D float
// tensors); an empty anchor means zeros. Any layout with named axes (empty: HWC / HW).
#include <cmath>
#include <cstring>

#include "kernels/erase/erase.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class EraseOp : public Operator {
 public:
  explicit EraseOp(const OpSpec& spec) : Operator(spec) {
    const bool normalized = HasArg("normalized") && Arg<bool>("normalized");
    norm_anchor_ = HasArg("normalized") ? normalized : Arg<bool>("normalized_anchor");
    norm_shape_ = HasArg("normalized") ? normalized : Arg<bool>("normalized_shape");
    centered_ = Arg<bool>("centered_anchor");
    fill_ = Arg<std::vector<double>>("fill_value");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = ws.batch_size();
    std::string layout = in.layout();
    const int nd = n > 0 ? in.shape(0).ndim() : 0;
    if (layout.empty()) layout = nd == 2 ? "HW" : nd == 3 ? "HWC" : "";
    for (int i = 0; i < n; ++i)
      if (in.shape(i).ndim() != static_cast<int>(layout.size()))
        throw Error("expected samples of layout '" + layout + "', sample " + std::to_string(i) + " has shape " +
                    in.shape(i).ToString());
    const auto c_pos = layout.find('C');
    channel_axis_ = c_pos == std::string::npos ? -1 : static_cast<int>(c_pos);
    // The axes that anchor/shape index.
    axes_.clear();
    if (HasArg("axis_names")) {
      for (char a : Arg<std::string>("axis_names")) {
        const auto p = layout.find(a);
        if (p == std::string::npos)
          ThrowArgError("axis_names", std::string("axis '") + a + "' is not in the input's layout '" + layout + "'");
        axes_.push_back(static_cast<int>(p));
      }
    } else if (HasArg("axes")) {
      for (int a : Arg<std::vector<int>>("axes")) {
        if (a < 0 || a >= static_cast<int>(layout.size()))
          ThrowArgError("axes", "axis " + std::to_string(a) + " is out of range for layout '" + layout + "'");
        axes_.push_back(a);
      }
    } else {
      for (int d = 0; d < static_cast<int>(layout.size()); ++d)
        if (d != channel_axis_) axes_.push_back(d);
    }
    if (axes_.empty()) ThrowArgError("axis_names", "no axes to erase along");
    if (fill_.size() > 1) {
      if (channel_axis_ < 0)
        ThrowArgError("fill_value", "a fill value per channel needs a channel axis 'C' in the layout, got '" + layout + "'");
      for (int i = 0; i < n; ++i)
        if (in.shape(i)[channel_axis_] != static_cast<int64_t>(fill_.size()))
          ThrowArgError("fill_value", "has " + std::to_string(fill_.size()) + " values, sample " + std::to_string(i) +
                                          " has " + std::to_string(in.shape(i)[channel_axis_]) + " channels");
    }
    anchors_ = PerSampleListArg<float>(ws, "anchor");
    shapes_ = PerSampleListArg<float>(ws, "shape");
    const size_t naxes = axes_.size();
    for (int i = 0; i < n; ++i) {
      auto& a = anchors_[static_cast<size_t>(i)];
      const auto& s = shapes_[static_cast<size_t>(i)];
      if (a.empty()) a.assign(s.size(), 0.f);
      if (a.size() != s.size())
        ThrowPerSample(IsArgInput("anchor") ? "anchor" : "shape", i,
                       "anchor has " + std::to_string(a.size()) + " values and shape " + std::to_string(s.size()) +
                           "; they must match");
      if (s.size() % naxes != 0)
        ThrowPerSample("shape", i,
                       "has " + std::to_string(s.size()) + " values, not a multiple of the " + std::to_string(naxes) +
                           " axes given by axis_names/axes");
      for (float v : a)
        if (!std::isfinite(v)) ThrowPerSample("anchor", i, "expected finite values");
      for (float v : s)
        if (!std::isfinite(v)) ThrowPerSample("shape", i, "expected finite values");
    }
    type_ = in.dtype();
    return {OutputDesc{in.shapes(), type_, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    std::memcpy(out.raw_mutable_sample(i), in.raw_sample(i), in.sample_bytes(i));
    const TensorShape& ts = in.shape(i);
    std::vector<int64_t> dims(ts.dims().begin(), ts.dims().end());
    const auto& a = anchors_[static_cast<size_t>(i)];
    const auto& s = shapes_[static_cast<size_t>(i)];
    const size_t naxes = axes_.size();
    for (size_t r = 0; r * naxes < s.size(); ++r) {
      std::vector<int64_t> lo(dims.size(), 0), hi = dims;
      for (size_t j = 0; j < naxes; ++j) {
        const int axis = axes_[j];
        // float arithmetic, as DALI (0.2f * 30 is 6 exactly there, not 6.0000001).
        const float extent = static_cast<float>(dims[static_cast<size_t>(axis)]);
        float av = a[r * naxes + j], sv = s[r * naxes + j];
        if (norm_anchor_) av *= extent;
        if (norm_shape_) sv *= extent;
        if (centered_) av -= sv / 2;
        lo[static_cast<size_t>(axis)] = static_cast<int64_t>(av);
        hi[static_cast<size_t>(axis)] = static_cast<int64_t>(av + sv);
      }
      kernels::EraseBox(out.raw_mutable_sample(i), type_, dims, lo, hi, fill_, channel_axis_);
    }
  }

 private:
  bool norm_anchor_ = false, norm_shape_ = false, centered_ = false;
  std::vector<double> fill_;
  int channel_axis_ = -1;
  std::vector<int> axes_;
  std::vector<std::vector<float>> anchors_, shapes_;
  DType type_ = DType::kUInt8;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterErase) {
  OpSchema s("erase");
  s.Doc("Erases one or more regions: anchor = (y0, x0, y1, x1, ...) and shape = (h0, w0, h1, w1, ...) over the axes "
        "named by axis_names (or axes; neither: every axis but 'C'); other axes are covered entirely. The erased "
        "elements take fill_value (one value, or one per channel).")
      .Input("input", "Tensors with a layout (e.g. HWC, CHW, HW), any type.")
      .Output("output", "The tensors with the regions erased.")
      .Arg("anchor", ArgType::kFloatList, std::vector<double>{},
           "Start of each region along the chosen axes, regions one after another; empty: zeros. Per sample allowed.",
           true)
      .Arg("shape", ArgType::kFloatList, std::vector<double>{},
           "Extent of each region along the chosen axes, regions one after another; empty: nothing is erased. Per "
           "sample allowed.",
           true)
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{1, 0},
           "Indices of the axes that anchor and shape refer to (used when axis_names is not given).")
      .Arg("axis_names", ArgType::kString, std::string("HW"),
           "Names (layout letters) of the axes that anchor and shape refer to; takes priority over axes.")
      .Layout()
      .Arg("normalized_anchor", ArgType::kBool, false, "anchor is a fraction of each axis' extent.")
      .Arg("normalized_shape", ArgType::kBool, false, "shape is a fraction of each axis' extent.")
      .Arg("normalized", ArgType::kBool, false,
           "Both anchor and shape are fractions (excludes normalized_anchor and normalized_shape).")
      .Arg("centered_anchor", ArgType::kBool, false, "anchor is the centre of the region, not its start.")
      .Arg("fill_value", ArgType::kFloatList, std::vector<double>{0.0},
           "The value of erased elements: one, or one per channel.")
      .Exclusive({"normalized", "normalized_anchor"})
      .Exclusive({"normalized", "normalized_shape"})
      .Check([](const ArgView& a) {
        if (a.IsArgInput("anchor") || a.IsArgInput("shape")) return;
        const auto an = a.Numbers("anchor"), sh = a.Numbers("shape");
        if (!an.empty() && an.size() != sh.size())
          throw ArgCheckError{"anchor", "has " + std::to_string(an.size()) + " values and shape " +
                                            std::to_string(sh.size()) + "; they must match"};
        const size_t naxes = a.Given("axis_names") || !a.Given("axes") ? a.String("axis_names").size()
                                                                        : a.Numbers("axes").size();
        if (a.Given("axis_names") && naxes > 0 && sh.size() % naxes != 0)
          throw ArgCheckError{"shape", "has " + std::to_string(sh.size()) + " values, not a multiple of the " +
                                           std::to_string(naxes) + " axes in axis_names"};
      })
      .Factory("cpu", MakeFactory<EraseOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
