// crop, device="gpu": the CPU operator's plan (crop_plan.h), one descriptor per sample, one
// batched launch.
#ifdef SLUICE_WITH_CUDA

#include "kernels/crop/crop_flip_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop/crop_gpu_descs.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::CropFlipDesc;

class CropGpu : public GpuOperator {
 public:
  explicit CropGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanCrop(*this, args_, ws, plan_);
    if (plan_.volume || plan_.channels_first)
      throw Error("crop (gpu): only HWC images are supported on the GPU; CHW images and volumes on the CPU");
    for (const CropSamplePlan& p : plan_.samples)
      if (p.fill.size() > sizeof(CropFlipDesc::fill))
        throw Error("crop (gpu): a fill pixel of " + std::to_string(p.channels) + " channels is too large");
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int64_t max_el = MakeCropDescs(plan_, in, out, descs_);
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), max_el, SizeOf(in.dtype()), Stream(ws));
  }

 private:
  const CropOpArgs args_;
  CropPlan plan_;
  std::vector<CropFlipDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterCropGpu) { AttachBackend(r, "crop", "gpu", MakeFactory<CropGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
