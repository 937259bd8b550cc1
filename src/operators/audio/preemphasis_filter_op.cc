// preemphasis_filter: DALI's first-order high-pass on signals (dali/operators/audio/
// preemphasis_filter_op.cc), out[t] = in[t] - coeff * in[t-1]; the kernel is
// kernels/audio/preemphasis.h, the GPU backend preemphasis_filter_gpu.cc.
#include "kernels/audio/preemphasis.h"
#include "operators/audio/preemphasis_filter_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class PreemphasisFilterOp : public Operator {
 public:
  explicit PreemphasisFilterOp(const OpSpec& spec) : Operator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanPreemphasis(*this, args_, ws, plan_);
    return {plan_.output};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::PreemphasisFilter(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), args_.out_type,
                               in.shape(i).num_elements(), plan_.coeff[static_cast<size_t>(i)], args_.border);
  }

 private:
  const PreemphasisArgs args_;
  PreemphasisPlan plan_;
};

// Every numeric type (a signal of bools has no meaning).
const std::vector<DType> kSignalTypes = {DType::kUInt8, DType::kInt8,    DType::kUInt16,  DType::kInt16, DType::kInt32,
                                         DType::kInt64, DType::kFloat16, DType::kFloat32, DType::kFloat64};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterPreemphasisFilter) {
  std::vector<std::string> type_names;
  for (DType t : kSignalTypes) type_names.emplace_back(ToString(t));
  r.Register(OpSchema("preemphasis_filter")
                 .Doc("Applies a preemphasis filter: out[t] = in[t] - preemph_coeff * in[t-1]; for t = 0 the previous "
                      "value is 0 (border 'zero': out[0] = in[0]), in[0] ('clamp') or in[1] ('reflect'). Each sample "
                      "is one signal, its elements taken in memory order, as in DALI (give multichannel audio one "
                      "channel per sample, or planar). Computed in float32 (float64 for float64 input); integer "
                      "outputs are rounded to nearest even and saturated.")
                 .Input("input", "Signals (1-D audio, or any shape read in memory order), any numeric type.",
                        kSignalTypes)
                 .Output("output", "The filtered signals: the input's shapes and layout, type `dtype`.")
                 .Arg("preemph_coeff", ArgType::kFloat, 0.97, "Preemphasis coefficient `coeff`.", true)
                 .Arg("border", ArgType::kString, std::string("clamp"),
                      "The value before the first element: 'zero' (0), 'clamp' (in[0]) or 'reflect' (in[1]; in[0] "
                      "for a one-element signal).")
                 .Enum({"zero", "clamp", "reflect"})
                 .Arg("dtype", ArgType::kDType, std::string("float32"), "Output type.")
                 .Enum(type_names)
                 .Factory("cpu", MakeFactory<PreemphasisFilterOp>()));
}

}  // namespace sluice
