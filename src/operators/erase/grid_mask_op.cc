// grid_mask: DALI's GridMask (dali/kernels/mask/grid_mask_cpu.h, arXiv:2001.04086): zeroes squares of
// side ratio * tile repeating every `tile` pixels, rotated by `angle` (radians) about the origin and
// shifted by (shift_x, shift_y) after the rotation; see kernels/erase/grid_mask.h for the formula.
// Every argument may be given per sample. HWC (or HW) images of uint8, int16, int32 or float32.
#include "kernels/erase/grid_mask.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class GridMaskOp : public Operator {
 public:
  explicit GridMaskOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const DType t = in.dtype();
    if (t != DType::kUInt8 && t != DType::kInt16 && t != DType::kInt32 && t != DType::kFloat32)
      throw Error("input type " + std::string(ToString(t)) + " is not supported (uint8, int16, int32 or float32)");
    const auto tile = PerSampleArg<int>(ws, "tile");
    const auto ratio = PerSampleArg<float>(ws, "ratio"), angle = PerSampleArg<float>(ws, "angle");
    const auto sx = PerSampleArg<float>(ws, "shift_x"), sy = PerSampleArg<float>(ws, "shift_y");
    params_.resize(tile.size());
    for (size_t i = 0; i < tile.size(); ++i) params_[i] = {tile[i], ratio[i], angle[i], sx[i], sy[i]};
    return {OutputDesc{in.shapes(), t, InputLayout(ws, 0), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    kernels::GridMask(in.raw_sample(i), ws.Output(0).raw_mutable_sample(i), in.dtype(), s[0], s[1],
                      s.ndim() == 3 ? s[2] : 1, params_[static_cast<size_t>(i)]);
  }

 private:
  std::vector<kernels::GridMaskParams> params_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterGridMask) {
  OpSchema s("grid_mask");
  s.Doc("GridMask augmentation: zeroes squares of side ratio * tile repeating every tile pixels in x and y, the grid "
        "rotated by angle (radians) about the origin and then shifted by (shift_x, shift_y).")
      .Input("input", "HWC (or HW) images: uint8, int16, int32 or float32.",
             {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat32}, InputLayouts{"HWC", "HW"})
      .Output("output", "The masked images, same shape.")
      .Arg("tile", ArgType::kInt, int64_t{100}, "Period of the grid in pixels: square width plus spacing (per sample).",
           true)
      .Min(1)
      .Arg("ratio", ArgType::kFloat, 0.5, "Width of the black squares as a fraction of the tile (per sample).", true)
      .Range(0, 1)
      .Arg("angle", ArgType::kFloat, 0.0, "Rotation of the grid in radians (per sample).", true)
      .Arg("shift_x", ArgType::kFloat, 0.0, "x component of the translation, applied after rotation (per sample).", true)
      .Arg("shift_y", ArgType::kFloat, 0.0, "y component of the translation, applied after rotation (per sample).", true)
      .Factory("cpu", MakeFactory<GridMaskOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
