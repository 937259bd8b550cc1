// crop: a window of HWC images (DALI's crop arguments, out_of_bounds_policy, fill_values).
#include "kernels/crop/crop.h"
#include "operators/image/crop_args.h"
#include "operators/image/crop_plan.h"
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
    kernels::Crop(in.raw_sample(i), p.in_h, p.in_w, p.channels, SizeOf(in.dtype()), win.x, win.y, win.w, win.h,
                  ws.Output(0).raw_mutable_sample(i), p.fill.empty() ? nullptr : p.fill.data());
  }

 private:
  const CropOpArgs args_;
  CropPlan plan_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterCrop) {
  OpSchema crop("crop");
  crop.Doc("Crops HWC images to a window (crop, crop_pos_x, crop_pos_y).")
      .Input("images", "HWC images of any type (or FHWC sequences: every frame of a sample cropped alike).")
      .UnfoldsSequences()
      .Output("cropped", "The cropped images.")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"), "A window outside the image: error, pad or trim_to_shape.")
      .Enum({"error", "pad", "trim_to_shape"})
      .Arg("fill_values", ArgType::kFloatList, std::vector<double>{0.0}, "Values of padded pixels, per channel.")
      .InputRegion(CropInputRegion)
      .Factory("cpu", MakeFactory<CropOp>());
  AddCropArgs(crop);
  r.Register(std::move(crop));
}

}  // namespace sluice
