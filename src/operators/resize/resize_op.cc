// resize: separable resampling with antialiasing, DALI's arguments and output-size rules.
#include "kernels/resize/resize.h"
#include "operators/resize/resampling_args.h"
#include "operators/resize/resize_input_bound.h"
#include "operators/resize/resize_plan.h"
#include "operators/resize/resize_sample.h"
#include "operators/resize/resize_size_args.h"
#include "operators/resize/resize_types.h"
#include "operators/resize/resize_volume_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ResizeOp : public Operator {
 public:
  explicit ResizeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const std::string layout = InputLayout(ws, 0);  // HWC, CHW, DHWC or CDHW (sequences come frame by frame)
    volumes_ = layout == "DHWC" || layout == "CDHW";
    if (volumes_) {
      PlanResizeVolumes(*this, args_, ws, volume_plan_);
      return {volume_plan_.output};
    }
    PlanResize(*this, args_, ws, plan_, /*windowed_input=*/true, /*planar_input=*/true);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    if (volumes_) return RunVolume(ws, i);
    if (plan_.channels_first) return RunPlanes(ws, i);
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    const TensorShape& s = in.shape(i);
    VisitResizeTypes(in, out, i, [&](const auto* src, auto* dst) {
      using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(src)>>;
      // A window of the image (ROI decode, so uint8): taps as for the whole image.
      if constexpr (std::is_same_v<TIn, uint8_t> || std::is_same_v<TIn, float>) {
        if (p.window) {
          kernels::ResizeWindow(src, int(s[0]), int(s[1]), p.channels, *p.window, dst, p.out_h, p.out_w, p.params);
          return;
        }
      }
      kernels::Resize(src, p.in_h, p.in_w, p.channels, dst, p.out_h, p.out_w, p.params);
    });
  }

 private:
  // A CHW image: each channel plane is a contiguous 1-channel HW image (resize_sample.h).
  void RunPlanes(Workspace& ws, int i) {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    ResizePlanes(in.raw_sample(i), in.dtype(), plan_.samples[static_cast<size_t>(i)], out.raw_mutable_sample(i),
                 out.dtype());
  }

  // DHWC volumes in one call; CDHW ones channel by channel (resize_sample.h).
  void RunVolume(Workspace& ws, int i) {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    ResizeVolumeSample(in.raw_sample(i), in.dtype(), volume_plan_.samples[static_cast<size_t>(i)],
                       volume_plan_.channels_first, out.raw_mutable_sample(i), out.dtype());
  }

  const ResizeArgs args_;
  ResizePlan plan_;
  bool volumes_ = false;  // this batch is DHWC or CDHW
  ResizeVolumePlan volume_plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterResize) {
  OpSchema s("resize");
  s.Doc("Resizes HWC/CHW images and DHWC/CDHW volumes with separable resampling. Downscaling is antialiased by default (the filter widens with "
        "the scale, as in Pillow). Exactly one of resize_x/resize_y, size, resize_shorter or resize_longer sets the "
        "output size; a missing extent keeps the aspect ratio.")
      .Input("images", "HWC or CHW images, DHWC or CDHW volumes (or F-first sequences of them, resized frame by "
             "frame): uint8, int16, uint16 or float32 (16-bit: CPU only). Channel-first inputs are resized channel by "
             "channel (CPU only).",
             ResizeInputTypes(), InputLayouts{"HWC", "CHW"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("resized", "Resized images or volumes, in the input's layout.");
  AddResizeSizeArgs(s);
  AddResamplingArgs(s);
  s.Arg("input_window", ArgType::kIntList, std::vector<int64_t>{},
        "Set by the pipeline (ROI decode, see decoders.image's `roi_decode`): per sample [y, x, full_height, "
        "full_width], the input is that window of a bigger image. The output is sized and computed as for the whole "
        "image, and only pixels whose filter taps lie in the window are computed (the others are 0). CPU only. "
        "Sluice only.",
        true)
      .MinInputSize(ResizeMinInputSize)
      .InputRegion(ResizeInputRegion)
      .AcceptsInputWindow("input_window")
      .Factory("cpu", [](const OpSpec& spec) { return std::make_unique<ResizeOp>(spec); });
  s.RetiredArg("image_type");  // deprecated in DALI 0.24
  r.Register(std::move(s));
}

}  // namespace sluice
