// color_space_conversion: DALI's conversions between RGB, BGR, YCbCr (ITU-R BT.601, studio range)
// and GRAY of channel-last images (kernels/color/color_space.h has the formulas). uint8 or float32
// (normalized 0..1) data; the output has the input's type and layout, with the output colour
// space's number of channels. The plan (color_space_plan.h) is shared with the GPU operator
// (color_space_gpu.cc).
#include "operators/color/color_space_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// In the order of DALI's DALIImageType (RGB = 0, BGR = 1, GRAY = 2, YCbCr = 3), for integer spellings.
const std::vector<std::string> kSpaces = {"RGB", "BGR", "GRAY", "YCbCr"};

class ColorSpaceConversionOp : public Operator {
 public:
  explicit ColorSpaceConversionOp(const OpSpec& spec) : Operator(spec), cs_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override { return {PlanColorSpace(*this, cs_, ws)}; }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto pixels = static_cast<size_t>(in.shape(i).num_elements() / kernels::ColorSpaceChannels(cs_.from));
    kernels::ConvertColorSpace(in.raw_sample(i), cs_.from, ws.Output(0).raw_mutable_sample(i), cs_.to, in.dtype(),
                               pixels);
  }

 private:
  const ColorSpaces cs_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterColorSpaceConversion) {
  OpSchema s("color_space_conversion");
  s.Doc("Converts images between colour spaces: RGB, BGR, YCbCr (ITU-R BT.601, Y in 16..235) and GRAY (JPEG luma "
        "0.299 R + 0.587 G + 0.114 B), with DALI's coefficients. uint8 or float32 (values in 0..1) channel-last "
        "images; the output keeps the type and has the output colour space's number of channels.")
      .Input("images", "Channel-last images: uint8 or float32.",
             {DType::kUInt8, DType::kFloat32},
             // Channel-last layouts, as DALI takes (sequences and volumes are converted as rows of pixels).
             InputLayouts{"HWC"}.AllowSequence().AllowVolume())
      .Output("output", "The converted images.")
      .Arg("image_type", ArgType::kString, std::nullopt, "Colour space of the input: RGB, BGR, YCbCr or GRAY.")
      .Enum(kSpaces, true)
      .Arg("output_type", ArgType::kString, std::nullopt, "Colour space of the output: RGB, BGR, YCbCr or GRAY.")
      .Enum(kSpaces, true)
      .Factory("cpu", MakeFactory<ColorSpaceConversionOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
