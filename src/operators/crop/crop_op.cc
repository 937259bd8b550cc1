// crop: a window of images (HWC, CHW) or volumes (DHWC, CDHW): DALI's crop arguments with crop_d and
// crop_pos_z, out_of_bounds_policy, fill_values.
#include "kernels/crop/crop.h"
#include "operators/crop/crop_args.h"
#include "operators/crop/crop_plan.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice {
namespace {

class CropOp : public Operator {
 public:
  explicit CropOp(const OpSpec& spec) : Operator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    PlanCrop(*this, args_, ws, plan_);
    return {plan_.output};
  }
  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    const CropSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
    const kernels::CropWindow& win = p.window;
    const size_t es = SizeOf(in.dtype());
    const auto* src = static_cast<const uint8_t*>(in.raw_sample(i));
    auto* dst = static_cast<uint8_t*>(ws.Output(0).raw_mutable_sample(i));
    const uint8_t* fill = p.fill.empty() ? nullptr : p.fill.data();
    if (!plan_.channels_first) {
      kernels::CropVolume(src, p.in_d, p.in_h, p.in_w, p.channels, es, p.z, p.d, win.x, win.y, win.w, win.h, dst, fill);
      return;
    }
    // CHW, CDHW: each channel a one-channel volume with its own fill value.
    const size_t in_plane = size_t(p.in_d * p.in_h * p.in_w) * es, out_plane = size_t(p.d) * win.h * win.w * es;
    for (int64_t c = 0; c < p.channels; ++c)
      kernels::CropVolume(src + size_t(c) * in_plane, p.in_d, p.in_h, p.in_w, 1, es, p.z, p.d, win.x, win.y, win.w,
                          win.h, dst + size_t(c) * out_plane, fill ? fill + size_t(c) * es : nullptr);
  }

 private:
  const CropOpArgs args_;
  CropPlan plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCrop) {
  OpSchema crop("crop");
  crop.Doc("Crops images to a window (crop, crop_pos_x, crop_pos_y), volumes also in depth (crop_d, crop_pos_z).")
      .Input("images", "HWC or CHW images, DHWC or CDHW volumes, of any type (an empty layout: HWC for 3 dimensions, "
             "DHWC for 4), or sequences of them (every frame of a sample cropped alike).")
      .UnfoldsSequences()
      .Output("cropped", "The cropped images.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"), "A window outside the image: error, pad or trim_to_shape.")
      .Enum({"error", "pad", "trim_to_shape"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Values of padded pixels, per channel.")
      .InputRegion(CropInputRegion)
      .Factory("cpu", MakeFactory<CropOp>());
  AddCropArgs(crop, /*volumetric=*/true);
  crop.RetiredArg("image_type");  // deprecated in DALI 0.24
  r.Register(std::move(crop));
}

}  // namespace sluice
