// jpeg_compression_distortion: DALI's JPEG artifacts (dali/operators/image/distortion/
// jpeg_compression_distortion_op*.h): each uint8 HWC image is encoded as a baseline JPEG at
// `quality` (constant or per sample; clamped to [1, 100] as DALI does) and decoded again, through
// libjpeg-turbo (kernels/noise/jpeg_distortion.h): 4:2:0 chroma subsampling for RGB.
#include <algorithm>

#include "kernels/noise/jpeg_distortion.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class JpegCompressionDistortionOp : public Operator {
 public:
  explicit JpegCompressionDistortionOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8)
      throw Error("input type " + std::string(ToString(in.dtype())) + " is not supported (uint8)");
    for (int i = 0; i < in.num_samples(); ++i) {
      const TensorShape& s = in.shape(i);
      if (s[2] != 3 && s[2] != 1)
        throw Error("expected HWC images with 3 (RGB) or 1 channels, sample " + std::to_string(i) + " has shape " +
                    s.ToString());
    }
    quality_ = PerSampleArg<int>(ws, "quality");
    for (int& q : quality_) q = std::clamp(q, 1, 100);
    return {OutputDesc{in.shapes(), DType::kUInt8, "HWC", in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    kernels::JpegDistort(in.sample<uint8_t>(i), static_cast<int>(s[0]), static_cast<int>(s[1]), static_cast<int>(s[2]),
                         quality_[static_cast<size_t>(i)], ws.Output(0).mutable_sample<uint8_t>(i));
  }

 private:
  std::vector<int> quality_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterJpegCompressionDistortion) {
  OpSchema s("jpeg_compression_distortion");
  s.Doc("Introduces JPEG compression artifacts: each image is encoded as a JPEG at `quality` and decoded again "
        "(libjpeg-turbo; 4:2:0 chroma subsampling for RGB).")
      .Input("input", "uint8 HWC images with 3 (RGB) or 1 channels, or FHWC sequences of them (frame by frame).",
             {DType::kUInt8}, InputLayouts{"HWC"}.AllowSequence())
      .UnfoldsSequences()
      .Output("output", "The distorted images, same shape.")
      .Arg("quality", ArgType::kInt, int64_t{50},
           "JPEG quality from 1 (lowest) to 100 (highest), per sample allowed; values outside are clamped.", true)
      .Factory("cpu", MakeFactory<JpegCompressionDistortionOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
