// reductions.{sum,mean,mean_square,rms,min,max,std_dev,variance}: DALI's reductions over `axes` or
// `axis_names` (none: all), with keep_dims and DALI's output-type rules; std_dev and variance take
// the mean as a second input, and ddof.
#include <cmath>
#include <stdexcept>

#include "kernels/reduce/reduce.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

enum class Kind { kSum, kMean, kMeanSquare, kRms, kMin, kMax, kStdDev, kVariance };

template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, float16>) return float16(static_cast<float>(v));
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(std::llround(v));
  else return static_cast<T>(v);
}

bool HasDType(Kind k) { return k == Kind::kSum || k == Kind::kMean || k == Kind::kMeanSquare || k == Kind::kRms; }
bool TakesMean(Kind k) { return k == Kind::kStdDev || k == Kind::kVariance; }

class Reduction : public Operator {
 public:
  Reduction(const OpSpec& spec, Kind kind)
      : Operator(spec), kind_(kind), axes_(Arg<std::vector<int64_t>>("axes")), names_(Arg<std::string>("axis_names")),
        keep_dims_(Arg<bool>("keep_dims")),
        dtype_given_(HasDType(kind) && HasArg("dtype")), dtype_(dtype_given_ ? Arg<DType>("dtype") : DType::kFloat32),
        ddof_(TakesMean(kind) ? Arg<int64_t>("ddof") : 0),
        // DALI: no axes and no axis_names reduce everything; axes=() or axis_names="" given
        // explicitly reduce nothing (the output keeps the input's shape and layout).
        reduce_all_when_empty_(!HasArg("axes") && !HasArg("axis_names")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const DType t = in.dtype();
    if (t == DType::kFloat16 || t == DType::kBool)
      throw Error(spec_.op + ": unsupported input type " + std::string(ToString(t)) + " (integers, float32 and float64 are supported)");
    out_type_ = OutputType(t);
    const int n = in.num_samples();
    std::vector<int64_t> axes = axes_;
    if (!names_.empty()) {
      axes.clear();
      for (char c : names_) {
        const auto pos = in.layout().find(c);
        if (pos == std::string::npos)
          ThrowArgError("axis_names", std::string("'") + c + "' is not in the input layout '" + in.layout() + "'");
        axes.push_back(static_cast<int64_t>(pos));
      }
    }
    plans_.assign(static_cast<size_t>(n), {});
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    int nd = -1;
    for (int i = 0; i < n; ++i) {
      const auto dims = in.shape(i).dims();
      if (nd >= 0 && in.shape(i).ndim() != nd)
        throw Error(spec_.op + ": samples differ in their number of dimensions (" + std::to_string(nd) + " and " +
                    std::to_string(in.shape(i).ndim()) + ")");
      nd = in.shape(i).ndim();
      try {
        plans_[static_cast<size_t>(i)] = kernels::MakeReducePlan(dims, axes, reduce_all_when_empty_);
      } catch (const std::invalid_argument& e) {
        ThrowArgError(names_.empty() ? "axes" : "axis_names", e.what());
      }
      shapes[static_cast<size_t>(i)] = TensorShape(plans_[static_cast<size_t>(i)].OutputDims(keep_dims_));
    }
    if (TakesMean(kind_)) {
      const TensorList& mean = ws.Input(1);
      if (mean.num_samples() != n)
        throw Error(spec_.op + ": the mean input has " + std::to_string(mean.num_samples()) + " samples, the data " + std::to_string(n));
      if (mean.dtype() == DType::kBool) throw Error(spec_.op + ": the mean input must be numeric");
      for (int i = 0; i < n; ++i) {
        const int64_t m = mean.shape(i).num_elements(), want = plans_[static_cast<size_t>(i)].OutputSize();
        if (m != want && m != 1)
          throw Error(spec_.op + ": sample " + std::to_string(i) + " of the mean input has shape " + mean.shape(i).ToString() + " (" +
                      std::to_string(m) + " values); the reduction gives " + shapes[static_cast<size_t>(i)].ToString() + " (" +
                      std::to_string(want) + " values)");
      }
    }
    std::string layout;
    const std::string& il = in.layout();
    if (n > 0 && static_cast<int>(il.size()) == nd) {
      if (keep_dims_) layout = il;
      else
        for (int d = 0; d < nd; ++d)
          if (!plans_[0].reduced[static_cast<size_t>(d)]) layout += il[static_cast<size_t>(d)];
    }
    return {{shapes, out_type_, layout, false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const kernels::ReducePlan& plan = plans_[static_cast<size_t>(i)];
    const size_t n_out = static_cast<size_t>(plan.OutputSize());
    const size_t n_in = static_cast<size_t>(in.shape(i).num_elements());
    const double count = static_cast<double>(plan.GroupSize());
    VisitDType(in.dtype(), [&](auto in_tag) {
      using In = decltype(in_tag);
      if constexpr (std::is_same_v<In, float16> || std::is_same_v<In, bool>) {
        return;
      } else {
        std::span<const In> x(in.sample<In>(i), n_in);
        VisitDType(out_type_, [&](auto out_tag) {
          using Out = decltype(out_tag);
          if constexpr (std::is_same_v<Out, bool>) {
            return;
          } else {
            std::span<Out> out(ws.Output(0).mutable_sample<Out>(i), n_out);
            Compute<In, Out>(ws, i, plan, x, out, count);
          }
        });
      }
    });
  }

 private:
  template <typename In, typename Out>
  void Compute(Workspace& ws, int i, const kernels::ReducePlan& plan, std::span<const In> x, std::span<Out> out, double count) {
    std::vector<double> acc(out.size());
    switch (kind_) {
      case Kind::kMin:
      case Kind::kMax:
        if constexpr (std::is_same_v<In, Out>) kernels::ReduceMinMax<In>(plan, x, out, kind_ == Kind::kMax);
        return;
      case Kind::kSum:
        if constexpr (std::is_integral_v<Out>) {
          kernels::ReduceSum<In, Out>(plan, x, out);  // integer sums wrap in the output type, as NumPy's
          return;
        } else {
          kernels::ReduceSum<In, double>(plan, x, acc);
          break;
        }
      case Kind::kMean:
        kernels::ReduceSum<In, double>(plan, x, acc);
        for (auto& v : acc) v /= count;
        break;
      case Kind::kMeanSquare:
      case Kind::kRms:
        kernels::ReduceSumSquares<In>(plan, x, acc);
        for (auto& v : acc) v = kind_ == Kind::kRms ? std::sqrt(v / count) : v / count;
        break;
      case Kind::kStdDev:
      case Kind::kVariance: {
        const TensorList& m = ws.Input(1);
        std::vector<double> mean(static_cast<size_t>(m.shape(i).num_elements()));
        for (size_t k = 0; k < mean.size(); ++k) mean[k] = detail::ReadElement<double>(m, i, static_cast<int64_t>(k));
        kernels::ReduceSumSquaredDeviations<In>(plan, x, mean, acc);
        const double div = count - static_cast<double>(ddof_);
        for (auto& v : acc) v = kind_ == Kind::kStdDev ? std::sqrt(v / div) : v / div;
        break;
      }
    }
    for (size_t k = 0; k < out.size(); ++k) out[k] = FromDouble<Out>(acc[k]);
  }

  DType OutputType(DType in) const {
    const bool integer = !IsFloating(in);
    switch (kind_) {
      case Kind::kMin:
      case Kind::kMax:
        return in;
      case Kind::kStdDev:
      case Kind::kVariance:
        return DType::kFloat32;
      case Kind::kSum:
        if (!dtype_given_) return integer ? DType::kInt64 : in;
        if (dtype_ == in || dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64 || (integer && dtype_ == DType::kInt64)) return dtype_;
        ThrowArgError("dtype", std::string(ToString(dtype_)) + " is not an output type for " + std::string(ToString(in)) +
                                   " input (allowed: the input type, " + (integer ? "int64, " : "") + "float32, float64)");
      default:  // mean, mean_square, rms
        if (!dtype_given_) return DType::kFloat32;
        if (dtype_ == in || dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64) return dtype_;
        ThrowArgError("dtype", std::string(ToString(dtype_)) + " is not an output type for " + std::string(ToString(in)) +
                                   " input (allowed: the input type, float32, float64)");
    }
  }

  Kind kind_;
  std::vector<int64_t> axes_;
  std::string names_;
  bool keep_dims_;
  bool dtype_given_;
  DType dtype_;
  int64_t ddof_;
  bool reduce_all_when_empty_ = true;
  DType out_type_ = DType::kFloat32;
  std::vector<kernels::ReducePlan> plans_;
};

template <Kind K>
class ReductionOf : public Reduction {
 public:
  explicit ReductionOf(const OpSpec& spec) : Reduction(spec, K) {}
};

template <Kind K>
OpSchema ReductionSchema(const std::string& name, const std::string& what, const std::string& dtype_doc) {
  OpSchema s("reductions." + name);
  s.Doc("Gets the " + what + " of the elements along `axes` or `axis_names` (none: all elements), as DALI's reductions." + name +
        ". Integers, float32 and float64 inputs. Without keep_dims the reduced axes are removed (and their layout names).");
  s.Input("input", "Input to the operator.");
  if (TakesMean(K)) s.Input("mean", "The mean per output value (or one per sample), e.g. from reductions.mean.");
  s.Output("output", "The reduction.");
  s.Arg("axes", ArgType::kIntList, std::vector<int64_t>{}, "Axes to reduce, in [-ndim, ndim-1]; not given: all; given empty: none.");
  s.Arg("axis_names", ArgType::kString, std::string(), "Layout names of the axes to reduce (instead of axes); given empty: none.");
  s.Arg("keep_dims", ArgType::kBool, false, "Keep the reduced axes with extent 1.");
  // sum's default depends on the input type (DALI's None): when dtype is not given, OutputType picks
  // int64 for integers and the input type for floats; the schema shows int64.
  if (HasDType(K)) s.Arg("dtype", ArgType::kDType, std::string(K == Kind::kSum ? "int64" : "float32"), dtype_doc);
  if (TakesMean(K)) s.Arg("ddof", ArgType::kInt, int64_t{0}, "Delta degrees of freedom: the divisor is N - ddof.");
  s.Exclusive({"axes", "axis_names"});
  s.Factory("cpu", MakeFactory<ReductionOf<K>>());
  return s;
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterReductions) {
  const std::string mean_dtype = "Output type (default float32): the input type, float32 or float64.";
  r.Register(ReductionSchema<Kind::kSum>("sum", "sum",
                                         "Output type, used to accumulate. Default: int64 for integer inputs, else the input "
                                         "type. Allowed: the input type (integers wrap), int64 (integer inputs), float32, float64."));
  r.Register(ReductionSchema<Kind::kMean>("mean", "mean", mean_dtype));
  r.Register(ReductionSchema<Kind::kMeanSquare>("mean_square", "mean square", mean_dtype));
  r.Register(ReductionSchema<Kind::kRms>("rms", "root mean square", mean_dtype));
  r.Register(ReductionSchema<Kind::kMin>("min", "minimum", ""));
  r.Register(ReductionSchema<Kind::kMax>("max", "maximum", ""));
  r.Register(ReductionSchema<Kind::kStdDev>("std_dev", "standard deviation (float32)", ""));
  r.Register(ReductionSchema<Kind::kVariance>("variance", "variance (float32)", ""));
}

}  // namespace sluice
