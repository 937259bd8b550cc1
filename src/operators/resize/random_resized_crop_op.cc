// random_resized_crop: a random window (kernels/random_crop_window.h: area fraction uniform in
// random_area, aspect ratio log-uniform in random_aspect_ratio, up to num_attempts tries, then the
// centred fallback -- torchvision's RandomResizedCrop.get_params distribution) resized to `size`
// with the resize operator's kernel (kernels/resize) and filters. HWC images, or CHW (each channel
// plane resized as a one-channel image), and FHWC/FCHW sequences of them: one window per sequence,
// every frame cropped and resized alike (as DALI 2.4, which draws the window per sample). The window
// is drawn from the sample's own random stream (Workspace::SampleRng), so results do not depend on
// num_threads.
#include <algorithm>

#include "kernels/crop/random_crop_window.h"
#include "kernels/resize/resize.h"
#include "operators/slice/slice_pad_util.h"
#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_types.h"
#include "operators/crop/random_crop_args.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class RandomResizedCropOp : public Operator {
 public:
  explicit RandomResizedCropOp(const OpSpec& spec) : Operator(spec) {
    crop_ = RandomCropParamsFrom(*this);
    const auto size = Arg<std::vector<int64_t>>("size");
    out_h_ = size.front();
    out_w_ = size.back();
    params_ = ResizeFilterParams(*this);
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const std::string layout = InputLayout(ws, 0);
    seq_ = !layout.empty() && layout.front() == 'F';
    chw_ = layout.substr(seq_ ? 1 : 0) == "CHW";
    const int o = seq_ ? 1 : 0;  // the first axis of a frame
    out_type_ = HasArg("dtype") ? Arg<DType>("dtype") : in.dtype();
    CheckResizeTypes(*this, in.dtype(), out_type_);
    const int n = in.num_samples();
    windows_.assign(static_cast<size_t>(n), {});
    OutputDesc d;
    d.dtype = out_type_;
    d.layout = layout;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = in.shape(i);
      const int64_t h = chw_ ? s[o + 1] : s[o], w = chw_ ? s[o + 2] : s[o + 1], c = chw_ ? s[o] : s[o + 2];
      const int64_t f = seq_ ? s[0] : 1;
      if (h < 1 || w < 1 || c < 1 || f < 1)
        throw Error("random_resized_crop: sample " + std::to_string(i) + " is empty, shape " + s.ToString());
      if (!chw_ && c > 4)
        throw Error("random_resized_crop: HWC images of 1..4 channels, sample " + std::to_string(i) + " has " +
                    std::to_string(c) + " (use CHW)");
      RandomGenerator rng = ws.SampleRng(i);
      windows_[static_cast<size_t>(i)] = kernels::RandomCropWindow(static_cast<int>(h), static_cast<int>(w), crop_,
                                                                   [&rng] { return rng.Uniform01(); });
      TensorShape frame = chw_ ? TensorShape{c, out_h_, out_w_} : TensorShape{out_h_, out_w_, c};
      d.shapes.push_back(seq_ ? TensorShape{f, frame[0], frame[1], frame[2]} : frame);
    }
    d.contiguous = AllSameShape(d.shapes);
    return {d};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const TensorShape& s = in.shape(i);
    const kernels::CropWindow& win = windows_[static_cast<size_t>(i)];
    kernels::ResizeParams p = params_;
    p.roi = kernels::ResizeRoi{static_cast<float>(win.x), static_cast<float>(win.y), static_cast<float>(win.x + win.w),
                               static_cast<float>(win.y + win.h)};
    const int o = seq_ ? 1 : 0;
    const int h = static_cast<int>(chw_ ? s[o + 1] : s[o]), w = static_cast<int>(chw_ ? s[o + 2] : s[o + 1]);
    const int c = static_cast<int>(chw_ ? s[o] : s[o + 2]);
    const int64_t frames = seq_ ? s[0] : 1;
    const int oh = static_cast<int>(out_h_), ow = static_cast<int>(out_w_);
    const int64_t in_frame = static_cast<int64_t>(h) * w * c, out_frame = static_cast<int64_t>(oh) * ow * c;
    auto run = [&](const auto* src, auto* dst) {
      for (int64_t f = 0; f < frames; ++f, src += in_frame, dst += out_frame) {
        if (!chw_) {
          kernels::Resize(src, h, w, c, dst, oh, ow, p);
          continue;
        }
        for (int k = 0; k < c; ++k)
          kernels::Resize(src + static_cast<int64_t>(k) * h * w, h, w, 1, dst + static_cast<int64_t>(k) * oh * ow, oh,
                          ow, p);
      }
    };
    VisitResizeTypes(in, out, i, run);
  }

 private:
  kernels::RandomCropParams crop_;
  kernels::ResizeParams params_;
  int64_t out_h_ = 0, out_w_ = 0;
  bool chw_ = false, seq_ = false;
  DType out_type_ = DType::kUInt8;
  std::vector<kernels::CropWindow> windows_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterRandomResizedCrop) {
  OpSchema s("random_resized_crop");
  s.Doc("Crops a random window (area fraction uniform in random_area, aspect ratio log-uniform in random_aspect_ratio, "
        "up to num_attempts tries, else the whole image clamped to the ratio range, centred) and resizes it to `size` "
        "with resize's filters. HWC or CHW images, or sequences of them (one window per sequence, as DALI).")
      .Input("images", "HWC or CHW images, or FHWC/FCHW sequences of them: uint8, int16, uint16 or float32.",
             ResizeInputTypes(), InputLayouts{"HWC", "CHW"}.AllowSequence())
      .Output("output", "The resized crops.")
      .Arg("size", ArgType::kIntList, std::nullopt, "Output size (height, width), or one value for both.")
      .Count({1, 2})
      .Min(1)
      .Random()
      .Factory("cpu", MakeFactory<RandomResizedCropOp>());
  AddRandomCropArgs(s, "crop");
  AddResamplingArgs(s);
  r.Register(std::move(s));
}

}  // namespace sluice
