// resize: separable resampling with antialiasing, DALI's arguments and output-size rules.
#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "operators/image/resampling_args.h"
#include "operators/image/resize_input_bound.h"
#include "operators/image/resize_plan.h"
#include "operators/image/resize_size_args.h"
#include "operators/image/resize_volume_plan.h"
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
    auto run = [&](const auto* src) {
      if (p.window) {  // a window of the image (ROI decode): taps as for the whole image
        if (out.dtype() == DType::kUInt8)
          kernels::ResizeWindow(src, int(s[0]), int(s[1]), p.channels, *p.window, out.mutable_sample<uint8_t>(i), p.out_h,
                                p.out_w, p.params);
        else
          kernels::ResizeWindow(src, int(s[0]), int(s[1]), p.channels, *p.window, out.mutable_sample<float>(i), p.out_h,
                                p.out_w, p.params);
      } else if (out.dtype() == DType::kUInt8)
        kernels::Resize(src, p.in_h, p.in_w, p.channels, out.mutable_sample<uint8_t>(i), p.out_h, p.out_w, p.params);
      else
        kernels::Resize(src, p.in_h, p.in_w, p.channels, out.mutable_sample<float>(i), p.out_h, p.out_w, p.params);
    };
    if (in.dtype() == DType::kUInt8) run(in.sample<uint8_t>(i));
    else run(in.sample<float>(i));
  }

 private:
  // A CHW image: each channel plane is a contiguous 1-channel HW image, resized in place of the
  // output's plane (no transposition).
  void RunPlanes(Workspace& ws, int i) {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const ResizeSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    const size_t in_plane = size_t(p.in_h) * size_t(p.in_w), out_plane = size_t(p.out_h) * size_t(p.out_w);
    auto run = [&](const auto* src, auto* dst) {
      for (int c = 0; c < p.channels; ++c)
        kernels::Resize(src + size_t(c) * in_plane, p.in_h, p.in_w, 1, dst + size_t(c) * out_plane, p.out_h, p.out_w,
                        p.params);
    };
    auto to = [&](const auto* src) {
      if (out.dtype() == DType::kUInt8) run(src, out.mutable_sample<uint8_t>(i));
      else run(src, out.mutable_sample<float>(i));
    };
    if (in.dtype() == DType::kUInt8) to(in.sample<uint8_t>(i));
    else to(in.sample<float>(i));
  }

  // DHWC volumes in one call; CDHW ones channel by channel, each a contiguous 1-channel DHW volume.
  void RunVolume(Workspace& ws, int i) {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const ResizeVolumeSamplePlan& p = volume_plan_.samples[static_cast<size_t>(i)];
    const bool planar = volume_plan_.channels_first;
    const size_t in_vol = size_t(p.in_d) * size_t(p.in_h) * size_t(p.in_w);
    const size_t out_vol = size_t(p.out_d) * size_t(p.out_h) * size_t(p.out_w);
    auto run = [&](const auto* src, auto* dst) {
      if (!planar)
        return kernels::ResizeVolume(src, p.in_d, p.in_h, p.in_w, p.channels, dst, p.out_d, p.out_h, p.out_w, p.params,
                                     p.depth);
      for (int c = 0; c < p.channels; ++c)
        kernels::ResizeVolume(src + size_t(c) * in_vol, p.in_d, p.in_h, p.in_w, 1, dst + size_t(c) * out_vol, p.out_d,
                              p.out_h, p.out_w, p.params, p.depth);
    };
    auto to = [&](const auto* src) {
      if (out.dtype() == DType::kUInt8) run(src, out.mutable_sample<uint8_t>(i));
      else run(src, out.mutable_sample<float>(i));
    };
    if (in.dtype() == DType::kUInt8) to(in.sample<uint8_t>(i));
    else to(in.sample<float>(i));
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
             "frame), uint8 or float32. Channel-first inputs are resized channel by channel (CPU only).",
             {DType::kUInt8, DType::kFloat32}, InputLayouts{"HWC", "CHW"}.AllowSequence().AllowVolume())
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
  r.Register(std::move(s));
}

}  // namespace sluice
