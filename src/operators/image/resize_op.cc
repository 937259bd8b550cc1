// resize: separable resampling with antialiasing, DALI's arguments and output-size rules.
#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "operators/image/resampling_args.h"
#include "operators/image/resize_input_bound.h"
#include "operators/image/resize_plan.h"
#include "operators/image/resize_size_args.h"
#include "operators/image/resize_types.h"
#include "operators/image/resize_volume_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class ResizeOp : public Operator {
 public:
  explicit ResizeOp(const OpSpec& spec) : Operator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    volumes_ = InputLayout(ws, 0) == "DHWC";
    if (volumes_) {
      PlanResizeVolumes(*this, args_, ws, volume_plan_);
      return {volume_plan_.output};
    }
    PlanResize(*this, args_, ws, plan_, /*windowed_input=*/true);
    return {plan_.output};
  }

  void RunSample(Workspace& ws, int i, int) override {
    if (volumes_) return RunVolume(ws, i);
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
  void RunVolume(Workspace& ws, int i) {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const ResizeVolumeSamplePlan& p = volume_plan_.samples[static_cast<size_t>(i)];
    VisitResizeTypes(in, out, i, [&](const auto* src, auto* dst) {
      kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params, p.depth);
    });
  }

  const ResizeArgs args_;
  ResizePlan plan_;
  bool volumes_ = false;  // this batch is DHWC
  ResizeVolumePlan volume_plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterResize) {
  OpSchema s("resize");
  s.Doc("Resizes HWC images and DHWC volumes with separable resampling. Downscaling is antialiased by default (the filter widens with "
        "the scale, as in Pillow). Exactly one of resize_x/resize_y, size, resize_shorter or resize_longer sets the "
        "output size; a missing extent keeps the aspect ratio.")
      .Input("images", "HWC images or DHWC volumes (or FHWC sequences, resized frame by frame): uint8, int16, uint16 "
             "or float32 (16-bit: CPU only).",
             ResizeInputTypes(), InputLayouts{"HWC"}.AllowSequence().AllowVolume())
      .UnfoldsSequences()
      .Output("resized", "Resized HWC images or DHWC volumes.");
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
  r.Register(std::move(s));
}

}  // namespace sluice
