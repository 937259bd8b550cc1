// color_space_conversion: DALI's conversions between RGB, BGR, YCbCr (ITU-R BT.601, studio range)
// and GRAY of channel-last images (kernels/color/color_space.h has the formulas). uint8 or float32
// (normalized 0..1) data; the output has the input's type and layout, with the output colour
// space's number of channels.
#include "kernels/color/color_space.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// In the order of DALI's DALIImageType (RGB = 0, BGR = 1, GRAY = 2, YCbCr = 3), for integer spellings.
const std::vector<std::string> kSpaces = {"RGB", "BGR", "GRAY", "YCbCr"};

class ColorSpaceConversionOp : public Operator {
 public:
  explicit ColorSpaceConversionOp(const OpSpec& spec)
      : Operator(spec),
        from_(*kernels::ParseColorSpace(Arg<std::string>("image_type"))),
        to_(*kernels::ParseColorSpace(Arg<std::string>("output_type"))) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    type_ = in.dtype();
    if (!kernels::ColorSpaceKernelSupports(type_))
      throw Error("input type " + std::string(ToString(type_)) + " is not supported (uint8 or float32)");
    const int cin = kernels::ColorSpaceChannels(from_), cout = kernels::ColorSpaceChannels(to_);
    std::vector<TensorShape> shapes;
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      if (s[s.ndim() - 1] != cin)
        ThrowArgError("image_type", "is " + std::string(kernels::ColorSpaceName(from_)) + " (" + std::to_string(cin) +
                                        " channel" + (cin == 1 ? "" : "s") + "), but sample " + std::to_string(i) +
                                        " has shape " + s.ToString());
      auto dims = s.dims();
      std::vector<int64_t> out_dims(dims.begin(), dims.end());
      out_dims.back() = cout;
      shapes.emplace_back(out_dims);
    }
    return {OutputDesc{shapes, type_, InputLayout(ws, 0), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const auto pixels = static_cast<size_t>(in.shape(i).num_elements() / kernels::ColorSpaceChannels(from_));
    kernels::ConvertColorSpace(in.raw_sample(i), from_, ws.Output(0).raw_mutable_sample(i), to_, type_, pixels);
  }

 private:
  kernels::ColorSpace from_, to_;
  DType type_ = DType::kUInt8;
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
