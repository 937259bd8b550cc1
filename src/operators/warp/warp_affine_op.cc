// warp_affine: DALI's affine warp of HWC images (dali/operators/image/remap/warp_affine*.h). The
// matrix (M11, M12, M13, M21, M22, M23) comes from the `matrix` argument (constant or per sample)
// or from a second input of 2x3 float32 matrices; with inverse_map=True (default) it maps output
// to input coordinates, dst(x, y) = src(M * (x, y)) at pixel centres; False inverts it first. The
// output keeps the input's size unless `size` is given.
#include <cmath>

#include "operators/registry.h"
#include "operators/warp/warp_op_base.h"

namespace sluice {
namespace {

class WarpAffineOp : public WarpOpBase {
 public:
  explicit WarpAffineOp(const OpSpec& spec) : WarpOpBase(spec), invert_(!Arg<bool>("inverse_map")) {}

 protected:
  void Plan(const Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = ws.batch_size();
    const auto sizes = ExplicitSizes(ws);
    const std::vector<std::vector<float>> mats = Matrices(ws);
    for (int i = 0; i < n; ++i) {
      const auto k = static_cast<size_t>(i);
      const std::vector<float>& v = mats[k];
      for (float x : v)
        if (!std::isfinite(x)) ThrowPerSample("matrix", i, "the matrix has a non-finite element");
      kernels::Affine2D m = kernels::Affine2D::FromRowMajor(v.data());
      if (invert_ && !kernels::Invert(m, &m))
        ThrowPerSample("matrix", i, "the matrix is singular and cannot be inverted (inverse_map=False)");
      maps_[k] = m;
      sizes_[k] = sizes[k] ? *sizes[k] : std::array<int64_t, 2>{in.shape(i)[0], in.shape(i)[1]};
    }
  }

 private:
  // Six numbers per sample, from the second input, the argument input or the constant.
  std::vector<std::vector<float>> Matrices(const Workspace& ws) const {
    const auto n = static_cast<size_t>(ws.batch_size());
    std::vector<std::vector<float>> out(n);
    if (ws.num_inputs() >= 2) {
      const TensorList& mt = ws.Input(1);
      if (mt.num_samples() != ws.batch_size())
        throw Error("input 'mtx' has " + std::to_string(mt.num_samples()) + " samples, the images " + std::to_string(n));
      for (size_t i = 0; i < n; ++i) {
        const TensorShape& s = mt.shape(static_cast<int>(i));
        if (s.num_elements() != 6 || s.ndim() > 2 || (s.ndim() == 2 && s[0] != 2))
          throw Error("input 'mtx' must hold a 2x3 affine matrix per sample, sample " + std::to_string(i) +
                      " has shape " + s.ToString());
        const float* p = mt.sample<float>(static_cast<int>(i));
        out[i].assign(p, p + 6);
      }
      return out;
    }
    const auto lists = PerSampleListArg<float>(ws, "matrix");
    for (size_t i = 0; i < n; ++i) {
      if (lists[i].size() != 6)
        ThrowPerSample("matrix", static_cast<int>(i),
                       "expected a 2x3 matrix (6 values), got " + std::to_string(lists[i].size()) + " values");
      out[i] = lists[i];
    }
    return out;
  }

  bool invert_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterWarpAffine) {
  OpSchema s("warp_affine");
  s.Doc("Applies an affine transformation to HWC images: output pixel (x, y) samples the input at M * (x + 0.5, "
        "y + 0.5) (pixel centres; M maps output to input coordinates unless inverse_map=False). M is the `matrix` "
        "argument (M11, M12, M13, M21, M22, M23), constant or per sample, or the second input (2x3 float32 per "
        "sample, e.g. from fn.transforms.*).");
  AddWarpArgs(s);
  s.Input("mtx", "Like `matrix`: 2x3 float32 affine matrices, one per sample.", {DType::kFloat32})
      .OptionalInputs(1)
      .Arg("matrix", ArgType::kFloatList, std::vector<double>{},
           "The transform matrix (M11, M12, M13, M21, M22, M23); per sample: 2x3 or 6-element tensors.", true)
      .Count({0, 6})
      .Arg("inverse_map", ArgType::kBool, true,
           "True: the matrix maps output (destination) to input (source) coordinates. False: source to destination "
           "(it is inverted).")
      .Check([](const ArgView& a) {
        const bool has_input = a.spec().inputs.size() >= 2;
        if (has_input && a.Given("matrix"))
          throw ArgCheckError{"matrix", "is given both as an argument and as the second input; give one"};
        if (!has_input && !a.Given("matrix"))
          throw ArgCheckError{"matrix", "is required when the transforms are not passed as the second input"};
      })
      .Factory("cpu", MakeFactory<WarpAffineOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
