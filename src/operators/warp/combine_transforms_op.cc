// transforms.combine: DALI's composition of two or more affine transforms (2-D here). Combining
// [T0, T1, ..., Tn] gives Tn * ... * T1 * T0 (applying the result equals applying T0 first, then T1,
// ...); with reverse_order, T0 * T1 * ... * Tn.
#include "kernels/warp/affine_transform.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using kernels::Affine2D;

constexpr int kMaxInputs = 10;  // DALI's CombineTransforms schema took 2..10 as well (later up to 99)

class CombineTransformsOp : public Operator {
 public:
  explicit CombineTransformsOp(const OpSpec& spec) : Operator(spec), reverse_order_(Arg<bool>("reverse_order")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.batch_size();
    for (int k = 0; k < ws.num_inputs(); ++k) {
      const TensorList& in = ws.Input(k);
      if (in.num_samples() != n)
        throw Error("input " + std::to_string(k) + " has " + std::to_string(in.num_samples()) + " samples, input 0 has " +
                    std::to_string(n));
      for (int i = 0; i < n; ++i) {
        const TensorShape& s = in.shape(i);
        if (s.ndim() != 2 || s[0] != 2 || s[1] != 3)
          throw Error("input " + std::to_string(k) + " must be 2x3 affine matrices (2-D transforms), sample " +
                      std::to_string(i) + " has shape " + s.ToString());
      }
    }
    matrices_.assign(static_cast<size_t>(n), Affine2D{});
    for (int i = 0; i < n; ++i) {
      Affine2D& m = matrices_[static_cast<size_t>(i)];
      for (int k = 0; k < ws.num_inputs(); ++k) {
        const Affine2D t = Affine2D::FromRowMajor(ws.Input(k).sample<float>(i));
        m = reverse_order_ ? kernels::Compose(m, t) : kernels::Compose(t, m);
      }
    }
    OutputDesc d;
    d.shapes.assign(static_cast<size_t>(n), TensorShape{2, 3});
    d.dtype = DType::kFloat32;
    d.contiguous = true;
    return {d};
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) matrices_[static_cast<size_t>(i)].ToRowMajor(out.mutable_sample<float>(i));
  }

 private:
  bool reverse_order_;
  std::vector<Affine2D> matrices_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCombineTransforms) {
  OpSchema s("transforms.combine");
  s.Doc("Combines two or more 2-D affine transforms (2x3 float32 matrices): by default the result applies the inputs "
        "in the order listed (combining [T1, T2, T3] gives T3(T2(T1(x)))); with reverse_order, T1(T2(T3(x))).");
  for (int k = 0; k < kMaxInputs; ++k)
    s.Input("input_" + std::to_string(k), "An affine transform: 2x3 float32 matrices, one per sample.", {DType::kFloat32});
  s.OptionalInputs(kMaxInputs - 2)
      .Output("matrix", "The combined 2x3 float32 matrices.")
      .Arg("reverse_order", ArgType::kBool, false, "Combine in the reverse order (the last input applied first).")
      .Factory("cpu", MakeFactory<CombineTransformsOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
