// copy: copies its input (the CUDA backend adds a "mixed" copy that uploads to the GPU).
#include <cstring>

#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class Copy : public Operator {
 public:
  using Operator::Operator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {{in.shapes(), in.dtype(), in.layout(), false}};
  }
  void RunSample(Workspace& ws, int i, int) override {
    std::memcpy(ws.Output(0).raw_mutable_sample(i), ws.Input(0).raw_sample(i), ws.Input(0).sample_bytes(i));
  }
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCopy) {
  r.Register(OpSchema("copy")
                 .Doc("Copies its input.")
                 .Input("input", "Any data.")
                 .Output("output", "A copy of the input.")
                 .Factory("cpu", MakeFactory<Copy>()));
}

}  // namespace sluice
