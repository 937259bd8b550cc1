// warp_affine: DALI's affine warp of HWC images (dali/operators/image/remap/warp_affine*.h). The
// matrix (M11, M12, M13, M21, M22, M23) comes from the `matrix` argument (constant or per sample)
// or from a second input of 2x3 float32 matrices; with inverse_map=True (default) it maps output
// to input coordinates, dst(x, y) = src(M * (x, y)) at pixel centres; False inverts it first. The
// output keeps the input's size unless `size` is given. DHWC volumes take 3x4 matrices
// (M11..M14, M21..M24, M31..M34) acting on (x, y, z), sampled by the 3-D kernel (warp_affine_3d.h).
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
    const std::vector<std::vector<float>> mats = Matrices(ws, 2);
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
  // rows x (rows + 1) numbers per sample (2x3 for images, 3x4 for volumes), from the second input,
  // the argument input or the constant.
  std::vector<std::vector<float>> Matrices(const Workspace& ws, int rows) const {
    const auto n = static_cast<size_t>(ws.batch_size());
    const auto count = static_cast<size_t>(rows * (rows + 1));
    const std::string what = std::to_string(rows) + "x" + std::to_string(rows + 1);
    std::vector<std::vector<float>> out(n);
    if (ws.num_inputs() >= 2) {
      const TensorList& mt = ws.Input(1);
      if (mt.num_samples() != ws.batch_size())
        throw Error("input 'mtx' has " + std::to_string(mt.num_samples()) + " samples, the images " + std::to_string(n));
      for (size_t i = 0; i < n; ++i) {
        const TensorShape& s = mt.shape(static_cast<int>(i));
        if (static_cast<size_t>(s.num_elements()) != count || s.ndim() > 2 || (s.ndim() == 2 && s[0] != rows))
          throw Error("input 'mtx' must hold a " + what + " affine matrix per sample" +
                      (rows == 3 ? " (the input is volumes)" : "") + ", sample " + std::to_string(i) + " has shape " +
                      s.ToString());
        const float* p = mt.sample<float>(static_cast<int>(i));
        out[i].assign(p, p + count);
      }
      return out;
    }
    const auto lists = PerSampleListArg<float>(ws, "matrix");
    for (size_t i = 0; i < n; ++i) {
      if (lists[i].size() != count)
        ThrowPerSample("matrix", static_cast<int>(i),
                       "expected a " + what + " matrix (" + std::to_string(count) + " values)" +
                           (rows == 3 ? " for volumes" : "") + ", got " + std::to_string(lists[i].size()) + " values");
      out[i] = lists[i];
    }
    return out;
  }

  // DHWC volumes: 3x4 maps, sizes (depth, height, width) or the input's.
  void PlanVolumes(const Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const auto n = static_cast<size_t>(ws.batch_size());
    const std::vector<std::vector<float>> mats = Matrices(ws, 3);
    const auto sizes = ExplicitSizes3(ws);
    for (size_t i = 0; i < n; ++i) {
      const int k = static_cast<int>(i);
      for (float x : mats[i])
        if (!std::isfinite(x)) ThrowPerSample("matrix", k, "the matrix has a non-finite element");
      kernels::Affine3D m = kernels::Affine3D::FromRowMajor(mats[i].data());
      if (invert_ && !kernels::Invert(m, &m))
        ThrowPerSample("matrix", k, "the matrix is singular and cannot be inverted (inverse_map=False)");
      maps3_[i] = m;
      const TensorShape& s = in.shape(k);
      sizes3_[i] = sizes[i] ? *sizes[i] : std::array<int64_t, 3>{s[0], s[1], s[2]};
    }
  }

  bool invert_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterWarpAffine) {
  OpSchema s("warp_affine");
  s.Doc("Applies an affine transformation to HWC images: output pixel (x, y) samples the input at M * (x + 0.5, "
        "y + 0.5) (pixel centres; M maps output to input coordinates unless inverse_map=False). M is the `matrix` "
        "argument (M11, M12, M13, M21, M22, M23), constant or per sample, or the second input (2x3 float32 per "
        "sample, e.g. from fn.transforms.*). DHWC volumes take 3x4 matrices acting on (x, y, z).");
  AddWarpArgs(s, /*volumes=*/true);
  s.Input("mtx", "Like `matrix`: 2x3 (volumes: 3x4) float32 affine matrices, one per sample.", {DType::kFloat32})
      .OptionalInputs(1)
      .Arg("matrix", ArgType::kFloatList, std::vector<double>{},
           "The transform matrix (M11, M12, M13, M21, M22, M23), or 12 values (3x4, row-major) for volumes; per "
           "sample: 2x3 / 3x4 or 6- / 12-element tensors.", true)
      .Count({0, 6, 12})
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
