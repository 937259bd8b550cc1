// transpose: dimensions permuted (perm), the layout with them.
#include "kernels/tensor/transpose.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/tensor/transpose_plan.h"

namespace sluice {
namespace {

class TransposeOp : public Operator {
 public:
  explicit TransposeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanTranspose(*this, args_, ws)}; }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::Transpose(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.shape(i).dims(), args_.perm,
                       SizeOf(in.dtype()));
  }

 private:
  const TransposeArgs args_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterTranspose) {
  r.Register(OpSchema("transpose")
                 .Doc("Permutes dimensions: output dimension i is input dimension perm[i].")
                 .Input("input", "Tensors of any type.")
                 .Output("output", "The transposed tensors.")
                 .Arg("perm", ArgType::kIntList, std::nullopt, "The permutation, e.g. [2, 0, 1] for HWC -> CHW.")
                 .Min(0)
                 .Arg("output_layout", ArgType::kString, std::string(), "Layout of the output (overrides transpose_layout).")
                 .Layout()
                 .Check([](const ArgView& a) {
                   const auto perm = a.Numbers("perm");
                   std::vector<bool> seen(perm.size(), false);
                   for (double p : perm) {
                     const auto k = static_cast<size_t>(p);
                     if (k >= perm.size() || seen[k])
                       throw ArgCheckError{"perm", "expected a permutation of 0.." + std::to_string(perm.size() - 1)};
                     seen[k] = true;
                   }
                   const std::string layout = a.String("output_layout");
                   if (!layout.empty() && layout.size() != perm.size())
                     throw ArgCheckError{"output_layout", "has " + std::to_string(layout.size()) + " letters for " +
                                                              std::to_string(perm.size()) + " dimensions"};
                 })
                 .Arg("transpose_layout", ArgType::kBool, true, "Permute the input's layout string too.")
                 .Factory("cpu", MakeFactory<TransposeOp>()));
}

}  // namespace sluice
