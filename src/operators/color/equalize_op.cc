// equalize: per-channel histogram equalization of uint8 images, as DALI's CPU operator
// (cv::equalizeHist on every channel; kernels/color/equalize.h). Layouts HW, HWC and CHW, and the
// sequences FHW, FHWC, FCHW (every frame on its own); no arguments.
#include "kernels/color/equalize.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class EqualizeOp : public Operator {
 public:
  explicit EqualizeOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8)
      throw Error("input type " + std::string(ToString(in.dtype())) + " is not supported (uint8 only, as DALI)");
    layout_ = InputLayout(ws, 0);
    return {OutputDesc{in.shapes(), DType::kUInt8, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const uint8_t* src = in.sample<uint8_t>(i);
    uint8_t* dst = ws.Output(0).mutable_sample<uint8_t>(i);
    const bool seq = layout_[0] == 'F';
    const int64_t frames = seq ? s[0] : 1;
    const int64_t frame = s.num_elements() / (frames ? frames : 1);
    const std::string img = seq ? layout_.substr(1) : layout_;
    const int o = seq ? 1 : 0;
    for (int64_t f = 0; f < frames; ++f, src += frame, dst += frame) {
      if (img == "HW") {
        kernels::Equalize(src, dst, frame, 1);
      } else if (img == "HWC") {
        kernels::Equalize(src, dst, s[o] * s[o + 1], static_cast<int>(s[o + 2]));
      } else {  // CHW: every plane on its own
        const int64_t plane = s[o + 1] * s[o + 2];
        for (int64_t c = 0; c < s[o]; ++c) kernels::Equalize(src + c * plane, dst + c * plane, plane, 1);
      }
    }
  }

 private:
  std::string layout_;  // as read (InputLayout): an input without a layout is HW or HWC
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterEqualize) {
  OpSchema s("equalize");
  s.Doc("Histogram equalization of every channel on its own (grayscale or per-channel), as DALI's CPU operator and "
        "OpenCV's equalizeHist. uint8 images: HW, HWC, CHW, or sequences of them (FHW, FHWC, FCHW).")
      // HWC before CHW: a 3-D input without a layout is channel-last.
      .Input("images", "uint8 images.", {DType::kUInt8},
             InputLayouts{"HWC", "CHW", "HW"}.AllowSequence())
      .Output("output", "The equalized images, same shape and layout.")
      .Factory("cpu", MakeFactory<EqualizeOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
