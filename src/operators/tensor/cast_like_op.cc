// cast_like: converts the first input to the type of the second (DALI's cast_like).
#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class CastLike : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), ws.Input(1).dtype(), in.layout(), true}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    kernels::Cast(in.raw_sample(i), in.dtype(), out.raw_mutable_sample(i), out.dtype(),
                  static_cast<size_t>(in.shape(i).num_elements()));
  }
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCastLike) {
  r.Register(OpSchema("cast_like")
                 .Doc("Converts `data` to the type of `like` (DALI's cast_like), with cast's rules: integer targets "
                      "saturate, floats round to nearest even. Only like's type is used.")
                 .Input("data", "Tensors of any type.")
                 .Input("like", "Data whose type the output takes.")
                 .Output("output", "The converted tensors (data's shapes and layout).")
                 .Factory("cpu", MakeFactory<CastLike>()));
}

}  // namespace sluice
