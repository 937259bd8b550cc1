// cast: elements converted to another type (saturating, round to nearest even).
#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/tensor/cast_plan.h"

namespace sluice {
namespace {

class CastOp : public Operator {
 public:
  explicit CastOp(const OpSpec& spec) : Operator(spec), to_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanCast(to_, ws)}; }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Cast(in.raw_sample(i), in.dtype(), ws.Output(0).raw_mutable_sample(i), to_,
                  static_cast<size_t>(in.shape(i).num_elements()));
  }

 private:
  DType to_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCast) {
  r.Register(OpSchema("cast")
                 .Doc("Converts elements to another type: integer targets saturate, floats round to nearest even.")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The converted tensors.")
                 .Arg("dtype", ArgType::kDType, std::nullopt, "Output type.")
                 .Factory("cpu", MakeFactory<CastOp>()));
}

}  // namespace sluice
