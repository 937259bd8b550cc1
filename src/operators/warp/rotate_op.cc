// rotate: DALI's rotation of HWC images (dali/operators/image/remap/rotate_params.h) by `angle`
// degrees counter-clockwise (top-left origin) about the image centre, the output centred on it.
// The output is `size` if given, else the input's size with keep_size, else the rotated image's
// bounding box with DALI's parity rule (kernels::RotatedCanvasSize). DHWC volumes rotate by `angle`
// about `axis` (x, y, z; right-handed), with the 3-D forms of the same rules (RotatedCanvasSize3D,
// RotateInverseMap3D).
#include <cmath>

#include "operators/registry.h"
#include "operators/warp/warp_op_base.h"

namespace sluice {
namespace {

class RotateOp : public WarpOpBase {
 public:
  explicit RotateOp(const OpSpec& spec) : WarpOpBase(spec), keep_size_(Arg<bool>("keep_size")) {}

 protected:
  void Plan(const Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const auto angles = PerSampleArg<double>(ws, "angle");
    const auto sizes = ExplicitSizes(ws);
    for (int i = 0; i < ws.batch_size(); ++i) {
      const auto k = static_cast<size_t>(i);
      const double a = angles[k];
      if (!std::isfinite(a)) ThrowPerSample("angle", i, "expected a finite angle");
      const int64_t h = in.shape(i)[0], w = in.shape(i)[1];
      if (sizes[k]) sizes_[k] = *sizes[k];
      else if (keep_size_) sizes_[k] = {h, w};
      else sizes_[k] = kernels::RotatedCanvasSize(h, w, a);
      maps_[k] = kernels::RotateInverseMap(h, w, sizes_[k][0], sizes_[k][1], a);
    }
  }

  void PlanVolumes(const Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (!HasArg("axis")) ThrowArgError("axis", "is required to rotate volumes (DHWC): the axis (x, y, z) to rotate about");
    const auto angles = PerSampleArg<double>(ws, "angle");
    const auto axes = PerSampleListArg<double>(ws, "axis");
    const auto sizes = ExplicitSizes3(ws);
    for (int i = 0; i < ws.batch_size(); ++i) {
      const auto k = static_cast<size_t>(i);
      const double a = angles[k];
      if (!std::isfinite(a)) ThrowPerSample("angle", i, "expected a finite angle");
      if (axes[k].size() != 3)
        ThrowPerSample("axis", i, "volumes take a 3-D axis (x, y, z), got " + std::to_string(axes[k].size()) + " values");
      const kernels::Vec3 axis{axes[k][0], axes[k][1], axes[k][2]};
      kernels::Affine3D rotation;
      if (!kernels::Rotation3D(axis, a, &rotation)) ThrowPerSample("axis", i, "the axis must have a non-zero length");
      const TensorShape& s = in.shape(i);
      const std::array<int64_t, 3> dhw{s[0], s[1], s[2]};
      if (sizes[k]) sizes3_[k] = *sizes[k];
      else if (keep_size_) sizes3_[k] = dhw;
      else sizes3_[k] = kernels::RotatedCanvasSize3D(s[0], s[1], s[2], rotation);
      kernels::RotateInverseMap3D(dhw, sizes3_[k], axis, a, &maps3_[k]);
    }
  }

 private:
  bool keep_size_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRotate) {
  OpSchema s("rotate");
  s.Doc("Rotates HWC images by `angle` degrees counter-clockwise (top-left origin) about their centre, and DHWC "
        "volumes by `angle` about `axis`. The output is `size` if given, else the input's size with keep_size=True, "
        "else large enough for the whole rotated image (DALI's size rule).");
  AddWarpArgs(s, /*volumes=*/true);
  s.Arg("angle", ArgType::kFloat, std::nullopt, "Angle, in degrees, counter-clockwise.", true)
      .Arg("axis", ArgType::kFloatList, std::vector<double>{},
           "The rotation axis (x, y, z) of volumes (right-handed), required for them; ignored for 2-D images.", true)
      .Count({0, 3})
      .Arg("keep_size", ArgType::kBool, false,
           "Keep the input's size (corners may be cut off); False: fit the whole rotated image. Ignored when `size` "
           "is given.")
      .Factory("cpu", MakeFactory<RotateOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
