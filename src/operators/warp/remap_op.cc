// experimental.remap: DALI's remap (GPU-only in DALI, CV-CUDA's Remap; this CPU version follows
// its documented semantics): output(x, y) = input(mapx(x, y), mapy(x, y)), mapx and mapy float32
// inputs of the output's size (HW, or HWC with one channel), border always constant 0, interp
// INTERP_NN / INTERP_LINEAR / INTERP_CUBIC, pixel_origin "corner" (DALI's default: the map's (0, 0)
// is the top-left corner of the top-left pixel) or "center" (OpenCV's cv2.remap). Images HWC or HW
// and their sequences (maps repeated per frame, or split per frame with an F layout).
#include "kernels/warp/remap.h"
#include "operators/filter/image_geom.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/warp/warp_op_base.h"

namespace sluice {
namespace {

class RemapOp : public Operator {
 public:
  explicit RemapOp(const OpSpec& spec) : Operator(spec) {
    const std::string interp = Arg<std::string>("interp");
    interp_ = interp == "NN"      ? kernels::PerspectiveInterp::kNearest
              : interp == "CUBIC" ? kernels::PerspectiveInterp::kCubic
                                  : kernels::PerspectiveInterp::kLinear;
    shift_ = Arg<std::string>("pixel_origin") == "corner" ? 0.5f : 0.f;
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const TensorList& mx = ws.Input(1);
    const TensorList& my = ws.Input(2);
    layout_ = InputLayout(ws, 0);
    std::vector<TensorShape> shapes;
    for (int i = 0; i < ws.batch_size(); ++i) {
      const TensorShape& sx = mx.shape(i);
      const TensorShape& sy = my.shape(i);
      if (sx != sy)
        throw Error("mapx and mapy must have the same shape, sample " + std::to_string(i) + " has " + sx.ToString() +
                    " and " + sy.ToString());
      if (!(sx.ndim() == 2 || (sx.ndim() == 3 && sx[2] == 1)))
        throw Error("mapx: expected one value per output pixel (HW or HWC with 1 channel), sample " +
                    std::to_string(i) + " has shape " + sx.ToString());
      const kernels::ImageGeom g = FilterImageGeom(in.shape(i), layout_);
      shapes.push_back(FilterImageShape(sx[0], sx[1], g.channels, layout_));
    }
    return {OutputDesc{shapes, in.dtype(), layout_, true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& ms = ws.Input(1).shape(i);
    const TensorShape os = ws.Output(0).shape(i);
    kernels::Remap(in.raw_sample(i), FilterImageGeom(in.shape(i), layout_), ws.Output(0).raw_mutable_sample(i),
                   FilterImageGeom(os, layout_), in.dtype(), static_cast<const float*>(ws.Input(1).raw_sample(i)),
                   static_cast<const float*>(ws.Input(2).raw_sample(i)), ms[1], interp_, shift_);
  }

 private:
  kernels::PerspectiveInterp interp_;
  float shift_ = 0.5f;
  std::string layout_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRemap) {
  r.Register(OpSchema("experimental.remap")
                 .Doc("Applies a generic geometric transformation: output(x, y) = input(mapx(x, y), mapy(x, y)), "
                      "the output the maps' size. Outside the input the value is 0 (DALI: border always constant "
                      "0). With pixel_origin=\"center\" it is OpenCV's cv2.remap with BORDER_CONSTANT.")
                 .Input("input", "Images, HWC (DALI: 1 or 3 channels; any here) or HW, or sequences of them: uint8, "
                                 "int16, uint16 or float32.",
                        {DType::kUInt8, DType::kInt16, DType::kUInt16, DType::kFloat32},
                        InputLayouts{"HWC", "HW"}.AllowSequence())
                 .Input("mapx", "x coordinate in the input of each output pixel: float32, HW (or HWC with 1 channel).",
                        {DType::kFloat32})
                 .Input("mapy", "y coordinate in the input of each output pixel: float32, the shape of mapx.",
                        {DType::kFloat32})
                 .UnfoldsSequences()
                 .Output("output", "The remapped images: the maps' height and width, the input's channels and type.")
                 .Arg("interp", ArgType::kString, std::string("LINEAR"),
                      "Interpolation: types.INTERP_NN, INTERP_LINEAR or INTERP_CUBIC (or their names).")
                 .Enum(WarpInterpNames(), true)
                 .Arg("pixel_origin", ArgType::kString, std::string("corner"),
                      "\"corner\": the maps' (0, 0) is the top-left corner of the top-left pixel; \"center\": its "
                      "centre (OpenCV's; pick it to match cv2.remap).")
                 .Enum({"corner", "center"})
                 .Check([](const ArgView& a) {
                   const std::string t = a.String("interp");
                   if (!t.empty() && t != "NN" && t != "LINEAR" && t != "CUBIC")
                     throw ArgCheckError{"interp", "only INTERP_NN, INTERP_LINEAR and INTERP_CUBIC are supported, got "
                                                   "INTERP_" + t};
                 })
                 .Factory("cpu", MakeFactory<RemapOp>()));
}

}  // namespace sluice
