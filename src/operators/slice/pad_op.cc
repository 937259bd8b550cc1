// pad: DALI's pad (dali/operators/generic/pad.h). Each sample is padded at the end of the chosen
// axes (axes/axis_names; none given: every axis) with fill_value, to the batch's largest extent
// on that axis, or to `shape` where it is given and positive (never below the sample's own
// extent), and then rounded up to a multiple of `align`. Any type, any rank, layout kept.
#include "operators/slice/slice_pad_util.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class PadOp : public Operator {
 public:
  using Operator::Operator;

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    OutputDesc d;
    d.dtype = in.dtype();
    d.layout = in.layout();
    specs_.assign(static_cast<size_t>(n), {});
    if (n == 0) return {d};
    const int ndim = in.shape(0).ndim();
    for (int i = 1; i < n; ++i)
      if (in.shape(i).ndim() != ndim)
        throw Error("pad: every sample must have the same number of dimensions, sample 0 has " + std::to_string(ndim) +
                    " and sample " + std::to_string(i) + " has " + std::to_string(in.shape(i).ndim()));
    std::vector<int> axes;
    if (HasArg("axis_names") && !Arg<std::string>("axis_names").empty())
      axes = AxesFromNames(*this, "axis_names", Arg<std::string>("axis_names"), in.layout());
    else
      axes = NormalizeAxes(*this, "axes", Arg<std::vector<int>>("axes"), ndim);
    if (axes.empty())
      for (int a = 0; a < ndim; ++a) axes.push_back(a);
    const size_t na = axes.size();
    const auto shape = PerSampleListArg<int64_t>(ws, "shape");
    const auto align = PerSampleListArg<int64_t>(ws, "align");
    fill_ = PerSampleArg<double>(ws, "fill_value");
    std::vector<int64_t> batch_max(na, 0);
    for (int i = 0; i < n; ++i)
      for (size_t a = 0; a < na; ++a) batch_max[a] = std::max(batch_max[a], in.shape(i)[axes[a]]);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      if (!shape[k].empty() && shape[k].size() != na)
        ThrowPerSample("shape", i, "expected " + std::to_string(na) + " extents (one per padded axis), got " +
                                       std::to_string(shape[k].size()));
      if (!align[k].empty() && align[k].size() != 1 && align[k].size() != na)
        ThrowPerSample("align", i, "expected one value or " + std::to_string(na) + " (one per padded axis), got " +
                                       std::to_string(align[k].size()));
      kernels::SliceSpec& sp = specs_[k];
      sp.in_shape = in.shape(i).to_vector();
      sp.anchor.assign(static_cast<size_t>(ndim), 0);
      sp.out_shape = sp.in_shape;
      for (size_t a = 0; a < na; ++a) {
        const auto dim = static_cast<size_t>(axes[a]);
        const int64_t want = shape[k].empty() || shape[k][a] <= 0 ? batch_max[a] : shape[k][a];
        int64_t ext = std::max(want, sp.in_shape[dim]);
        const int64_t al = align[k].empty() ? 1 : align[k][align[k].size() == 1 ? 0 : a];
        if (al < 1) ThrowPerSample("align", i, "alignment must be positive, got " + std::to_string(al));
        ext = (ext + al - 1) / al * al;
        sp.out_shape[dim] = ext;
      }
      d.shapes.push_back(TensorShape(sp.out_shape));
    }
    d.contiguous = AllSameShape(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    RunSlicePad(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), in.dtype(), specs_[static_cast<size_t>(i)],
                {fill_[static_cast<size_t>(i)]});
  }

 private:
  std::vector<double> fill_;  // per sample
  std::vector<kernels::SliceSpec> specs_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterPad) {
  OpSchema s("pad");
  s.Doc("Pads every sample at the end of the chosen axes with fill_value: to the largest extent in the batch, or to "
        "`shape`, then up to a multiple of `align`. Any type, any number of dimensions.")
      .Input("input", "Tensors of any type and rank (the same rank in the batch).")
      .Output("output", "The padded tensors.")
      .Arg("fill_value", ArgType::kFloat, 0.0, "The value of padded elements (converted to the input type).", true)
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{},
           "Indices of the padded axes (negative: from the back); empty with axis_names empty: every axis.")
      .Arg("axis_names", ArgType::kString, std::string(), "Names (layout letters) of the padded axes.")
      .Layout()
      .Exclusive({"axes", "axis_names"})
      .Arg("align", ArgType::kIntList, std::vector<int64_t>{},
           "Each padded extent is rounded up to a multiple of this: one value for every axis, or one per axis.", true)
      .Min(1)
      .Arg("shape", ArgType::kIntList, std::vector<int64_t>{},
           "Output extents per padded axis; -1 (or any value <= 0): the batch's largest extent. Never below the "
           "sample's own extent.",
           true)
      .Factory("cpu", MakeFactory<PadOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
