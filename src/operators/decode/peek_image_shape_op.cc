// peek_image_shape: the shape an encoded image would have once decoded (DALI's fn.peek_image_shape),
// from its headers alone: [height, width, channels] after the EXIF orientation (adjust_orientation)
// with image_type's channel count. ANY_DATA gives the stored channels, 4 for a CMYK/YCCK JPEG (as
// DALI reports it, although the decoders turn such a JPEG into 3-channel RGB).
#include "kernels/decode/image_decoder.h"
#include "operators/decode/decoder_base.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string> kImageTypes = {"RGB", "BGR", "GRAY", "YCbCr", "ANY_DATA"};

class PeekImageShape : public Operator {
 public:
  explicit PeekImageShape(const OpSpec& spec)
      : Operator(spec), dtype_(Arg<DType>("dtype")), adjust_orientation_(Arg<bool>("adjust_orientation")) {
    const std::string type = Arg<std::string>("image_type");
    channels_ = type == "GRAY" ? 1 : type == "ANY_DATA" ? 0 : 3;  // 0: the image's own
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const int n = ws.Input(0).num_samples();
    return {{std::vector<TensorShape>(static_cast<size_t>(n), TensorShape{3}), dtype_, "", true}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const kernels::ImageInfo info = kernels::PeekImage(
        std::span<const uint8_t>(in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements())));
    const bool swap = adjust_orientation_ && info.orientation >= 5;
    const int64_t h = swap ? info.width : info.height, w = swap ? info.height : info.width;
    const int64_t c = channels_ ? channels_ : (info.cmyk ? 4 : info.channels);
    const int64_t shape[3] = {h, w, c};
    VisitDType(dtype_, [&](auto tag) {
      using T = decltype(tag);
      T* out = ws.Output(0).mutable_sample<T>(i);
      for (int d = 0; d < 3; ++d) out[d] = static_cast<T>(shape[d]);
    });
  }

 private:
  DType dtype_;
  bool adjust_orientation_;
  int channels_ = 3;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterPeekImageShape) {
  r.Register(OpSchema("peek_image_shape")
                 .Doc("The shape [height, width, channels] an encoded image would have once decoded, read from its headers "
                      "without decoding (DALI's peek_image_shape). JPEG, PNG, WebP, BMP and PNM.")
                 .Input("data", "Encoded images (uint8, 1-D).", {DType::kUInt8})
                 .Output("shape", "Per sample [height, width, channels].")
                 .Arg("dtype", ArgType::kDType, std::string("int64"), "The type the extents are converted to.")
                 .Enum({"int32", "int64", "float32", "float64"})
                 .Arg("adjust_orientation", ArgType::kBool, true,
                      "Apply the EXIF orientation (height and width swap for orientations 5 to 8).")
                 .Arg("image_type", ArgType::kString, std::string("RGB"),
                      "The colour format the image would be decoded to: its channel count (ANY_DATA: the image's own).")
                 .Enum(kImageTypes, true)
                 .Factory("cpu", MakeFactory<PeekImageShape>()));
}

}  // namespace sluice
