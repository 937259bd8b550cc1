// to_decibels: DALI's conversion of magnitudes to decibels
// (dali/operators/signal/decibel/to_decibels_op_cpu.cc); the kernel is kernels/audio/to_decibels.h.
#include <vector>

#include "kernels/audio/to_decibels.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ToDecibelsOp : public Operator {
 public:
  explicit ToDecibelsOp(const OpSpec& spec) : Operator(spec) {
    args_.multiplier = Arg<float>("multiplier");
    // DALI: the maximum unless `reference` is given (and 0 given is an error there); here 0, the
    // default, means the maximum either way, so that the default can be written out.
    args_.reference = Arg<float>("reference");
    args_.reference_max = args_.reference == 0.0f;
    args_.cutoff_db = Arg<float>("cutoff_db");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    return {OutputDesc{in.shapes(), DType::kFloat32, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::ToDecibels(in.sample<float>(i), ws.Output(0).mutable_sample<float>(i), in.shape(i).num_elements(), args_);
  }

 private:
  kernels::ToDecibelsArgs args_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterToDecibels) {
  r.Register(OpSchema("to_decibels")
                 .Doc("Converts a magnitude (real, positive) to the decibel scale (DALI's to_decibels): "
                      "min_ratio = 10^(cutoff_db / multiplier), out = multiplier * log10(max(min_ratio, in / reference)); "
                      "with reference 0 (the default), each sample's maximum is the reference (an all-zero sample gives cutoff_db). "
                      "float32, any shape.")
                 .Input("input", "Magnitudes or powers, float32, any shape.", {DType::kFloat32})
                 .Output("output", "Decibels: the input's shape and layout, float32.")
                 .Arg("multiplier", ArgType::kFloat, 10.0,
                      "Factor of the logarithm: typically 10 for powers, 20 for magnitudes.")
                 .Arg("reference", ArgType::kFloat, 0.0,
                      "Reference magnitude; 0 (the default): the maximum of each sample.")
                 .Arg("cutoff_db", ArgType::kFloat, -200.0,
                      "The lowest output: ratios below 10^(cutoff_db / multiplier) saturate (e.g. -80 with multiplier 10: 1e-8).")
                 .Factory("cpu", MakeFactory<ToDecibelsOp>()));
}

}  // namespace sluice
