// normalize: DALI's normalization out = (in - mean) * scale / sqrt(var + epsilon) + shift, with
// mean and stddev (var = stddev^2) given or computed over `axes`/`axis_names` per sample, or over the
// whole batch (batch=True). A computed variance divides by N - ddof; a stddev computed while mean is
// given is taken around the given mean. mean and stddev may be per-sample argument inputs shaped
// like the reduced tensor (the input's shape with extent 1 in the reduced axes) or scalars; without
// axes/axis_names the reduced axes are those where such a tensor has extent 1 (else: all axes).
// Kernels: kernels/normalize/normalize.h.
#include <cmath>

#include "kernels/normalize/normalize.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string> kTypes = {"float32", "uint8", "int8", "uint16", "int16", "int32"};

std::string ShapeText(const std::vector<int64_t>& d) { return TensorShape(d).ToString(); }

class NormalizeOp : public Operator {
 public:
  explicit NormalizeOp(const OpSpec& spec)
      : Operator(spec),
        batch_(Arg<bool>("batch")),
        ddof_(Arg<int64_t>("ddof")),
        epsilon_(Arg<double>("epsilon")),
        scale_(Arg<double>("scale")),
        shift_(Arg<double>("shift")),
        out_type_(Arg<DType>("dtype")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    in_type_ = in.dtype();
    if (!kernels::NormalizeSupportsInput(in_type_))
      throw Error("input type " + std::string(ToString(in_type_)) +
                  " is not supported (uint8, int8, uint16, int16, int32 or float32)");
    const int n = in.num_samples();
    const int nd = n ? in.shape(0).ndim() : 0;
    for (int i = 0; i < n; ++i)
      if (in.shape(i).ndim() != nd)
        throw Error("samples differ in their number of dimensions (" + std::to_string(nd) + " and " +
                    std::to_string(in.shape(i).ndim()) + ")");
    const uint32_t mask = ReducedAxes(ws, in, nd);
    samples_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      Sample& s = samples_[static_cast<size_t>(i)];
      const auto d = in.shape(i).dims();
      s.g.dims.assign(d.begin(), d.end());
      s.g.reduced = mask;
      s.mean = GivenParam(ws, "mean", i, s.g);
      s.stddev = GivenParam(ws, "stddev", i, s.g);
      for (size_t k = 0; k < s.stddev.size(); ++k)
        if (!(s.stddev[k] >= 0) || !std::isfinite(s.stddev[k]))
          ThrowPerSample("stddev", i, "expected a finite number >= 0, got " + std::to_string(s.stddev[k]));
      for (double m : s.mean)
        if (!std::isfinite(m)) ThrowPerSample("mean", i, "expected a finite number, got " + std::to_string(m));
      if (s.stddev.empty() && !batch_ && in.shape(i).num_elements() > 0 && s.g.GroupSize() - ddof_ <= 0)
        ThrowArgError("ddof", "is " + std::to_string(ddof_) + " but sample " + std::to_string(i) + " reduces only " +
                                  std::to_string(s.g.GroupSize()) + " element(s) per statistic (need more than ddof)");
    }
    if (batch_) BatchStatistics(in);
    return {OutputDesc{in.shapes(), out_type_, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    Sample& s = samples_[static_cast<size_t>(i)];
    if (!batch_) ComputeStatistics(s, {in.raw_sample(i)}, s.g.GroupSize());
    const size_t p = static_cast<size_t>(s.g.ParamVolume());
    std::vector<float> mean(p), mul(p);
    for (size_t k = 0; k < p; ++k) {
      mean[k] = static_cast<float>(s.mean[k]);
      mul[k] = kernels::NormalizeMultiplier(s.var[k], epsilon_, scale_);
    }
    kernels::NormalizeApply(in.raw_sample(i), in_type_, ws.Output(0).raw_mutable_sample(i), out_type_, s.g,
                            mean.data(), mul.data(), static_cast<float>(shift_));
  }

 private:
  struct Sample {
    kernels::NormalizeGeometry g;
    std::vector<double> mean, stddev, var;  // mean/stddev: given (ParamVolume entries) or empty
  };

  // The reduced axes as a bit mask, from axes, axis_names, the shapes of mean/stddev, or all axes.
  uint32_t ReducedAxes(const Workspace& ws, const TensorList& in, int nd) const {
    uint32_t mask = 0;
    if (HasArg("axes")) {
      for (int64_t a : Arg<std::vector<int64_t>>("axes")) {
        if (a < -nd || a >= nd)
          ThrowArgError("axes", "axis " + std::to_string(a) + " is out of range for " + std::to_string(nd) +
                                    "-dimensional input (expected [-" + std::to_string(nd) + ", " +
                                    std::to_string(nd - 1) + "])");
        mask |= 1u << (a < 0 ? a + nd : a);
      }
      return mask;
    }
    if (HasArg("axis_names")) {
      const std::string names = Arg<std::string>("axis_names");
      for (char c : names) {
        const size_t pos = in.layout().find(c);
        if (pos == std::string::npos)
          ThrowArgError("axis_names", "axis '" + std::string(1, c) + "' is not in the input's layout '" + in.layout() + "'");
        mask |= 1u << pos;
      }
      return mask;
    }
    // Inferred from the argument inputs' shapes: an extent of 1 marks a reduced axis.
    std::optional<uint32_t> inferred;
    for (const char* name : {"mean", "stddev"}) {
      const TensorList* t = ws.ArgInput(name);
      if (!t) continue;
      for (int i = 0; i < t->num_samples(); ++i) {
        const TensorShape& s = t->shape(i);
        if (s.num_elements() == 1 && s.ndim() != nd) continue;  // a scalar: fits any axes
        if (s.ndim() != nd)
          ThrowArgError(name, "sample " + std::to_string(i) + " of the per-sample input has shape " + s.ToString() +
                                  "; expected a scalar or a " + std::to_string(nd) +
                                  "-dimensional tensor (the input's shape with extent 1 in the reduced axes)");
        uint32_t m = 0;
        for (int d = 0; d < nd; ++d)
          if (s[d] == 1) m |= 1u << d;
        if (inferred && *inferred != m)
          ThrowArgError(name, "sample " + std::to_string(i) + " has shape " + s.ToString() +
                                  ", which reduces other axes than the other samples or argument (give axes)");
        inferred = m;
      }
    }
    if (inferred) return *inferred;
    return nd >= 32 ? ~0u : (1u << nd) - 1;
  }

  // The values of a given mean/stddev broadcast to the parameters' shape, or {} if not given.
  std::vector<double> GivenParam(const Workspace& ws, const char* name, int i, const kernels::NormalizeGeometry& g) const {
    const size_t p = static_cast<size_t>(g.ParamVolume());
    if (const TensorList* t = ws.ArgInput(name)) {
      if (batch_)
        ThrowArgError(name, "is given per sample, but batch=True computes one set of statistics for the whole "
                            "batch: give it as a constant");
      if (t->num_samples() != ws.batch_size())
        ThrowArgError(name, "per-sample input has " + std::to_string(t->num_samples()) + " samples, the batch has " +
                                std::to_string(ws.batch_size()));
      const TensorShape& s = t->shape(i);
      const auto want = g.ParamShape();
      std::vector<double> v;
      if (s.num_elements() == 1) return std::vector<double>(p, detail::ReadElement<double>(*t, i, 0));
      const auto dims = s.dims();
      if (std::vector<int64_t>(dims.begin(), dims.end()) != want)
        ThrowArgError(name, "sample " + std::to_string(i) + " of the per-sample input has shape " + s.ToString() +
                                "; expected a scalar or " + ShapeText(want) +
                                " (the input's shape with extent 1 in the reduced axes)");
      for (size_t k = 0; k < p; ++k) v.push_back(detail::ReadElement<double>(*t, i, static_cast<int64_t>(k)));
      return v;
    }
    if (HasArg(name)) return std::vector<double>(p, Arg<double>(name));
    return {};
  }

  // Fills s.mean (if not given) and s.var from the samples `data`, all of s.g's geometry.
  void ComputeStatistics(Sample& s, const std::vector<const void*>& data, int64_t count) const {
    const size_t p = static_cast<size_t>(s.g.ParamVolume());
    if (s.mean.empty()) {
      std::vector<double> sums(p, 0.0);
      for (const void* d : data) kernels::AccumulateSum(d, in_type_, s.g, sums.data());
      s.mean.resize(p);
      for (size_t k = 0; k < p; ++k) s.mean[k] = count ? sums[k] / static_cast<double>(count) : 0.0;
    }
    s.var.assign(p, 0.0);
    if (!s.stddev.empty()) {
      for (size_t k = 0; k < p; ++k) s.var[k] = s.stddev[k] * s.stddev[k];
      return;
    }
    std::vector<double> acc(p, 0.0);
    for (const void* d : data) kernels::AccumulateSquaredDeviation(d, in_type_, s.g, s.mean.data(), acc.data());
    for (size_t k = 0; k < p; ++k) s.var[k] = acc[k] / static_cast<double>(count - ddof_);
  }

  // batch=True: one set of statistics over every sample (their non-reduced extents must match).
  void BatchStatistics(const TensorList& in) {
    if (samples_.empty()) return;
    const auto want = samples_[0].g.ParamShape();
    int64_t count = 0;
    std::vector<const void*> data;
    for (size_t i = 0; i < samples_.size(); ++i) {
      if (samples_[i].g.ParamShape() != want)
        ThrowArgError("batch", "needs the samples to match in the non-reduced axes, but sample " + std::to_string(i) +
                                   " has shape " + ShapeText(samples_[i].g.dims) + " and sample 0 " +
                                   ShapeText(samples_[0].g.dims));
      count += samples_[i].g.GroupSize();
      data.push_back(in.raw_sample(static_cast<int>(i)));
    }
    if (samples_[0].stddev.empty() && count - ddof_ <= 0)
      ThrowArgError("ddof", "is " + std::to_string(ddof_) + " but the batch reduces only " + std::to_string(count) +
                                " element(s) per statistic");
    // Every sample reads the same statistics: compute them once, with sample 0's geometry (the
    // accumulators have the shared parameter shape).
    Sample shared = samples_[0];
    std::vector<double> sums(static_cast<size_t>(shared.g.ParamVolume()), 0.0);
    if (shared.mean.empty()) {
      for (size_t i = 0; i < samples_.size(); ++i) kernels::AccumulateSum(data[i], in_type_, samples_[i].g, sums.data());
      shared.mean.resize(sums.size());
      for (size_t k = 0; k < sums.size(); ++k) shared.mean[k] = count ? sums[k] / static_cast<double>(count) : 0.0;
    }
    shared.var.assign(sums.size(), 0.0);
    if (!shared.stddev.empty()) {
      for (size_t k = 0; k < sums.size(); ++k) shared.var[k] = shared.stddev[k] * shared.stddev[k];
    } else {
      std::vector<double> acc(sums.size(), 0.0);
      for (size_t i = 0; i < samples_.size(); ++i)
        kernels::AccumulateSquaredDeviation(data[i], in_type_, samples_[i].g, shared.mean.data(), acc.data());
      for (size_t k = 0; k < acc.size(); ++k) shared.var[k] = acc[k] / static_cast<double>(count - ddof_);
    }
    for (auto& s : samples_) {
      s.mean = shared.mean;
      s.var = shared.var;
    }
  }

  bool batch_;
  int64_t ddof_;
  double epsilon_, scale_, shift_;
  DType out_type_, in_type_ = DType::kUInt8;
  std::vector<Sample> samples_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterNormalize) {
  OpSchema s("normalize");
  s.Doc("Normalizes the input: out = (in - mean) * scale / sqrt(stddev^2 + epsilon) + shift. mean and stddev are "
        "given (constants, or per-sample tensors shaped like the input with extent 1 in the reduced axes) or "
        "computed over axes/axis_names (all axes by default) per sample, or over the whole batch with batch=True; "
        "a computed variance divides by N - ddof.")
      .Input("input", "Data of any shape: uint8, int8, uint16, int16, int32 or float32.",
             {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32, DType::kFloat32})
      .Output("output", "The normalized data, same shape and layout, of type dtype.")
      .Arg("mean", ArgType::kFloat, 0.0,
           "Mean to subtract. Not given: computed over the reduced axes. Per-sample tensors: the input's shape with "
           "extent 1 in the reduced axes, or scalars.",
           true)
      .Arg("stddev", ArgType::kFloat, 1.0,
           "Standard deviation to divide by (>= 0). Not given: computed over the reduced axes (around the given mean, "
           "if any). Per-sample tensors as for mean.",
           true)
      .Arg("axes", ArgType::kIntList, std::vector<int64_t>{},
           "Axes to reduce (negative counts from the back). Not given (nor axis_names): inferred from the shape of "
           "per-sample mean/stddev, else all axes.")
      .Arg("axis_names", ArgType::kString, std::string(""), "Axes to reduce, by their letters in the input's layout.")
      .Layout()
      .Exclusive({"axes", "axis_names"})
      .Arg("batch", ArgType::kBool, false,
           "Compute mean and stddev over the whole batch (the samples must match in the non-reduced axes).")
      .Arg("ddof", ArgType::kInt, int64_t{0}, "Delta degrees of freedom: a computed variance divides by N - ddof.")
      .Min(0)
      .Arg("epsilon", ArgType::kFloat, 0.0, "Added to the variance before the square root.")
      .Min(0)
      .Arg("scale", ArgType::kFloat, 1.0, "Multiplies the normalized value (useful for integer outputs).")
      .Arg("shift", ArgType::kFloat, 0.0, "Added last: the value the mean maps to (useful for unsigned outputs).")
      .Arg("dtype", ArgType::kDType, std::string("float32"),
           "Output type: float32, or uint8, int8, uint16, int16, int32 (rounded and saturated).")
      .Enum(kTypes)
      .Factory("cpu", MakeFactory<NormalizeOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
