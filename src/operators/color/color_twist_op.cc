// hsv, hue, saturation, color_twist: DALI's linear approximation of HSV adjustments
// (dali/operators/image/color/color_twist.h, ColorTwistBase): every pixel is multiplied by
//   brightness * contrast * inverse(Rgb2Yiq) * Hue(hue) * Sat(saturation) * value * Rgb2Yiq
// and offset by (half_range - half_range * contrast) * brightness, where half_range is 0.5 for
// float inputs and 128 for integer ones (kernels/color/color_adjust.h has the matrices). RGB HWC
// images of 3 channels; every argument may be given per sample. The plan (color_adjust_plan.h) is
// shared with the GPU operator (color_adjust_gpu.cc).
#include "kernels/color/color_adjust.h"
#include "operators/color/color_adjust_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string> kTypes = {"uint8", "int16", "int32", "float32", "float16"};

class ColorTwistOp : public Operator {
 public:
  explicit ColorTwistOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanColorTwist(*this, ws, plan_);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::ColorMatrix3(in.raw_sample(i), plan_.in_type, ws.Output(0).raw_mutable_sample(i), plan_.out_type,
                          static_cast<size_t>(in.shape(i).num_elements() / 3), plan_.transforms[static_cast<size_t>(i)]);
  }

 private:
  ColorTwistPlan plan_;
};

OpSchema& Hue(OpSchema& s) {
  return s.Arg("hue", ArgType::kFloat, 0.0, "Hue change, in degrees (additive; wraps around like a rotation).", true);
}
OpSchema& Saturation(OpSchema& s, bool non_negative) {
  s.Arg("saturation", ArgType::kFloat, 1.0, "Saturation multiplier: 0 gives a grey image, 1 no change.", true);
  return non_negative ? s.Min(0) : s;
}
OpSchema& ImageType(OpSchema& s) {
  // DALI's ColorTransformBase argument: declared, not used by DALI's kernels. Only RGB makes sense.
  return s.Arg("image_type", ArgType::kString, std::string("RGB"), "Colour space of the input and output: RGB only.")
      .Enum({"RGB"}, true);
}
OpSchema& Common(OpSchema& s) {
  // Every pixel on its own, so DHWC volumes are a stack of pixels like an image (DALI takes them).
  return s.Input("images", "RGB HWC images or DHWC volumes (or FHWC sequences): uint8, int16, int32, float16 or "
                 "float32.",
                 {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat16, DType::kFloat32},
                 InputLayouts{"HWC"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("output", "The adjusted images, same shape.")
      .Arg("dtype", ArgType::kDType, std::string("uint8"),
           "Output type: uint8, int16, int32, float16 or float32 (default: the input's). Integer results are rounded "
           "and saturated.")
      .Enum(kTypes)
      .Factory("cpu", MakeFactory<ColorTwistOp>());
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterColorTwist) {
  OpSchema hsv("hsv");
  hsv.Doc("Adjusts hue (additive, degrees), saturation and value (multipliers) of RGB images, approximated by a "
          "linear transform in RGB as DALI does: the colour is rotated about the grey axis in YIQ and scaled.");
  Hue(hsv);
  Saturation(hsv, false);
  hsv.Arg("value", ArgType::kFloat, 1.0, "Value (brightness) multiplier.", true);
  r.Register(std::move(Common(hsv)));

  OpSchema hue("hue");
  hue.Doc("Changes the hue of RGB images by `hue` degrees (a rotation about the grey axis in YIQ, as DALI).");
  Hue(hue);
  ImageType(hue);
  r.Register(std::move(Common(hue)));

  OpSchema sat("saturation");
  sat.Doc("Changes the saturation of RGB images (a scaling of YIQ's chroma, as DALI).");
  Saturation(sat, true);
  ImageType(sat);
  r.Register(std::move(Common(sat)));

  OpSchema twist("color_twist");
  twist.Doc("Adjusts hue, saturation, contrast and brightness of RGB images in one linear transform, as DALI: "
            "out = brightness * (contrast * M(hue, saturation) * in + (1 - contrast) * half_range), half_range 0.5 "
            "for float inputs and 128 for integer ones.");
  Hue(twist);
  Saturation(twist, true);
  twist.Arg("contrast", ArgType::kFloat, 1.0, "Contrast multiplier: 0 gives a uniform grey, 1 no change.", true)
      .Min(0)
      .Arg("brightness", ArgType::kFloat, 1.0, "Brightness multiplier: 0 gives black, 1 no change.", true)
      .Min(0);
  ImageType(twist);
  r.Register(std::move(Common(twist)));
}

}  // namespace sluice
