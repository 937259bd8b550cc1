// brightness_contrast, brightness, contrast: DALI's affine intensity adjustment
// (dali/operators/image/color/brightness_contrast.h):
//   out = brightness_shift * output_range + brightness * (contrast_center + contrast * (in - contrast_center))
// output_range: the output type's maximum for integers, 1 for floats; contrast_center, when not
// given: half of the input type's positive range (128 for uint8, 0.5 for float). Every argument
// may be given per sample. Element-wise, so any number of channels. The plan (color_adjust_plan.h)
// is shared with the GPU operator (color_adjust_gpu.cc).
#include "kernels/color/color_adjust.h"
#include "operators/color/color_adjust_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string> kTypes = {"uint8", "int16", "int32", "float32"};

class BrightnessContrastOp : public Operator {
 public:
  explicit BrightnessContrastOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanBrightnessContrast(*this, ws, plan_);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    kernels::ColorAffine(in.raw_sample(i), plan_.in_type, ws.Output(0).raw_mutable_sample(i), plan_.out_type,
                         static_cast<size_t>(in.shape(i).num_elements()), plan_.coeffs[static_cast<size_t>(i)]);
  }

 private:
  ColorAffinePlan plan_;
};

OpSchema& AddBrightness(OpSchema& s) {
  return s.Arg("brightness", ArgType::kFloat, 1.0, "Brightness multiplier (per sample allowed).", true)
      .Arg("brightness_shift", ArgType::kFloat, 0.0,
           "Brightness shift, in units of the output range (1.0: the maximum of an integer output type, 1 for float).",
           true);
}

OpSchema& AddContrast(OpSchema& s) {
  return s.Arg("contrast", ArgType::kFloat, 1.0, "Contrast multiplier; 0 gives a uniform grey (per sample allowed).", true)
      .Arg("contrast_center", ArgType::kFloat, 0.5,
           "The intensity that contrast leaves unchanged, in input units. Not given: half of the input type's "
           "positive range (128 for uint8, 0.5 for float).",
           true);
}

OpSchema& AddCommon(OpSchema& s) {
  // Channel-last images (HWC), DHWC volumes (element-wise: a stack of pixels like an image) and
  // sequences of them (FHWC, frame by frame: pipeline/sequence_unfold.h).
  return s.Input("images", "HWC images or DHWC volumes (or FHWC sequences): uint8, int16, int32 or float32.",
                 {DType::kUInt8, DType::kInt16, DType::kInt32, DType::kFloat32},
                 InputLayouts{"HWC"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("output", "The adjusted images, same shape.")
      .Arg("dtype", ArgType::kDType, std::string("uint8"),
           "Output type: uint8, int16, int32 or float32 (default: the input's). Integer results are rounded and "
           "saturated.")
      .Enum(kTypes)
      .Factory("cpu", MakeFactory<BrightnessContrastOp>());
}

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterBrightnessContrast) {
  OpSchema bc("brightness_contrast");
  bc.Doc("Adjusts brightness and contrast: out = brightness_shift * output_range + brightness * (contrast_center + "
         "contrast * (in - contrast_center)); output_range is 1 for float outputs, the type's maximum for integers.");
  AddBrightness(bc);
  AddContrast(bc);
  r.Register(std::move(AddCommon(bc)));

  OpSchema b("brightness");
  b.Doc("Adjusts brightness: out = brightness_shift * output_range + brightness * in; output_range is 1 for float "
        "outputs, the type's maximum for integers.");
  AddBrightness(b);
  r.Register(std::move(AddCommon(b)));

  OpSchema c("contrast");
  c.Doc("Adjusts contrast: out = contrast_center + contrast * (in - contrast_center).");
  AddContrast(c);
  r.Register(std::move(AddCommon(c)));
}

}  // namespace sluice
