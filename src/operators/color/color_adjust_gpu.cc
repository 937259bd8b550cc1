// brightness, contrast, brightness_contrast, hsv, hue, saturation, color_twist, device="gpu": the
// CPU operators' plans (color_adjust_plan.h), one descriptor per sample, one batched launch; the
// results equal the CPU operators' bit for bit (kernels/color/color_adjust_cuda.h).
#ifdef SLUICE_WITH_CUDA
#include "kernels/color/color_adjust_cuda.h"
#include "operators/color/color_adjust_gpu_descs.h"
#include "operators/gpu/gpu_operator.h"

namespace sluice::gpu {
namespace {

class ColorAffineGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanBrightnessContrast(*this, ws, plan_);
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int64_t max_el = MakeColorAffineDescs(plan_, in, ws.Output(0), descs_);
    kernels::cuda::LaunchColorAffine(UploadDescs(descs_, ws), in.num_samples(), max_el, plan_.in_type,
                                     plan_.out_type, Stream(ws));
  }

 private:
  ColorAffinePlan plan_;
  std::vector<kernels::cuda::ColorAffineDesc> descs_;
};

class ColorTwistGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanColorTwist(*this, ws, plan_);
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int64_t max_px = MakeColorMatrixDescs(plan_, in, ws.Output(0), descs_);
    kernels::cuda::LaunchColorMatrix3(UploadDescs(descs_, ws), in.num_samples(), max_px, plan_.in_type,
                                      plan_.out_type, Stream(ws));
  }

 private:
  ColorTwistPlan plan_;
  std::vector<kernels::cuda::ColorMatrixDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterColorAdjustGpu) {
  for (const char* op : {"brightness", "contrast", "brightness_contrast"})
    AttachBackend(r, op, "gpu", MakeFactory<ColorAffineGpu>());
  for (const char* op : {"hsv", "hue", "saturation", "color_twist"})
    AttachBackend(r, op, "gpu", MakeFactory<ColorTwistGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
