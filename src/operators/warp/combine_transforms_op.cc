// transforms.combine: DALI's composition of two or more affine transforms, 2-D (2x3) or 3-D (3x4),
// all inputs alike. Combining
// [T0, T1, ..., Tn] gives Tn * ... * T1 * T0 (applying the result equals applying T0 first, then T1,
// ...); with reverse_order, T0 * T1 * ... * Tn.
#include "kernels/warp/affine_transform.h"
#include "kernels/warp/affine_transform_3d.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

using kernels::Affine2D;
using kernels::Affine3D;

constexpr int kMaxInputs = 10;  // DALI's CombineTransforms schema took 2..10 as well (later up to 99)

class CombineTransformsOp : public Operator {
 public:
  explicit CombineTransformsOp(const OpSpec& spec) : Operator(spec), reverse_order_(Arg<bool>("reverse_order")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.batch_size();
    ndim_ = 0;
    for (int k = 0; k < ws.num_inputs(); ++k) {
      const TensorList& in = ws.Input(k);
      if (in.num_samples() != n)
        throw Error("input " + std::to_string(k) + " has " + std::to_string(in.num_samples()) + " samples, input 0 has " +
                    std::to_string(n));
      for (int i = 0; i < n; ++i) {
        const TensorShape& s = in.shape(i);
        const int nd = s.ndim() == 2 && s[0] == 2 && s[1] == 3 ? 2 : s.ndim() == 2 && s[0] == 3 && s[1] == 4 ? 3 : 0;
        if (nd == 0 || (ndim_ != 0 && nd != ndim_))
          throw Error("input " + std::to_string(k) + " must be 2x3 or 3x4 affine matrices (all inputs alike), sample " +
                      std::to_string(i) + " has shape " + s.ToString());
        ndim_ = nd;
      }
    }
    if (ndim_ == 0) ndim_ = 2;
    matrices_.assign(static_cast<size_t>(n), Affine3D{});
    for (int i = 0; i < n; ++i) {
      Affine3D& m = matrices_[static_cast<size_t>(i)];
      for (int k = 0; k < ws.num_inputs(); ++k) {
        const float* p = ws.Input(k).sample<float>(i);
        const Affine3D t = ndim_ == 3 ? Affine3D::FromRowMajor(p) : kernels::Embed(Affine2D::FromRowMajor(p));
        m = reverse_order_ ? kernels::Compose(m, t) : kernels::Compose(t, m);
      }
    }
    OutputDesc d;
    d.shapes.assign(static_cast<size_t>(n), ndim_ == 3 ? TensorShape{3, 4} : TensorShape{2, 3});
    d.dtype = DType::kFloat32;
    d.contiguous = true;
    return {d};
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    for (int i = 0; i < out.num_samples(); ++i) {
      const Affine3D& m = matrices_[static_cast<size_t>(i)];
      if (ndim_ == 3) m.ToRowMajor(out.mutable_sample<float>(i));
      else kernels::Project(m).ToRowMajor(out.mutable_sample<float>(i));
    }
  }

 private:
  bool reverse_order_;
  int ndim_ = 2;
  std::vector<Affine3D> matrices_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCombineTransforms) {
  OpSchema s("transforms.combine");
  s.Doc("Combines two or more affine transforms (2x3 float32 matrices, or 3x4 for 3-D, all alike): by default the result applies the inputs "
        "in the order listed (combining [T1, T2, T3] gives T3(T2(T1(x)))); with reverse_order, T1(T2(T3(x))).");
  for (int k = 0; k < kMaxInputs; ++k)
    s.Input("input_" + std::to_string(k), "An affine transform: 2x3 (or 3x4) float32 matrices, one per sample.", {DType::kFloat32});
  s.OptionalInputs(kMaxInputs - 2)
      .Output("matrix", "The combined 2x3 (or 3x4) float32 matrices.")
      .Arg("reverse_order", ArgType::kBool, false, "Combine in the reverse order (the last input applied first).")
      .Factory("cpu", MakeFactory<CombineTransformsOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
