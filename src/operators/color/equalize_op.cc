// equalize: per-channel histogram equalization of uint8 images, as DALI's CPU operator
// (cv::equalizeHist on every channel; kernels/color/equalize.h). Layouts HW, HWC and CHW, and the
// sequences FHW, FHWC, FCHW (every frame on its own); no arguments.
#include "kernels/color/equalize.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

const std::vector<std::string> kLayouts = {"HW", "HWC", "CHW", "FHW", "FHWC", "FCHW"};

class EqualizeOp : public Operator {
 public:
  explicit EqualizeOp(const OpSpec& spec) : Operator(spec) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8)
      throw Error("input type " + std::string(ToString(in.dtype())) + " is not supported (uint8 only, as DALI)");
    layout_ = in.layout();
    if (!layout_.empty()) {
      bool ok = false;
      for (const auto& l : kLayouts) ok = ok || l == layout_;
      if (!ok) throw Error("expected a layout among HW, HWC, CHW, FHW, FHWC, FCHW, got '" + layout_ + "'");
    }
    for (int i = 0; i < in.num_samples(); ++i) {
      const int nd = in.shape(i).ndim();
      if (layout_.empty() ? (nd != 2 && nd != 3) : nd != static_cast<int>(layout_.size()))
        throw Error("sample " + std::to_string(i) + " has shape " + in.shape(i).ToString() + ", which does not match " +
                    (layout_.empty() ? std::string("HW or HWC images") : "the layout '" + layout_ + "'"));
    }
    return {OutputDesc{in.shapes(), DType::kUInt8, in.layout(), in.is_contiguous()}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const TensorShape& s = in.shape(i);
    const std::string layout = layout_.empty() ? (s.ndim() == 2 ? "HW" : "HWC") : layout_;
    const uint8_t* src = in.sample<uint8_t>(i);
    uint8_t* dst = ws.Output(0).mutable_sample<uint8_t>(i);
    const bool seq = layout[0] == 'F';
    const int64_t frames = seq ? s[0] : 1;
    const int64_t frame = s.num_elements() / (frames ? frames : 1);
    const std::string img = seq ? layout.substr(1) : layout;
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
  std::string layout_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterEqualize) {
  OpSchema s("equalize");
  s.Doc("Histogram equalization of every channel on its own (grayscale or per-channel), as DALI's CPU operator and "
        "OpenCV's equalizeHist. uint8 images: HW, HWC, CHW, or sequences of them (FHW, FHWC, FCHW).")
      .Input("images", "uint8 images (HW, HWC, CHW, FHW, FHWC or FCHW).", {DType::kUInt8})
      .Output("output", "The equalized images, same shape and layout.")
      .Factory("cpu", MakeFactory<EqualizeOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
