// flip, device="gpu": the CPU operator's plan (flip_plan.h), one descriptor per sample, one
// batched launch.
#ifdef SLUICE_WITH_CUDA

#include "kernels/crop/crop_flip_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop/crop_gpu_descs.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::CropFlipDesc;

class FlipGpu : public GpuOperator {
 public:
  using GpuOperator::GpuOperator;
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanFlip(*this, ws, plan_);
    for (size_t k = 0; k < plan_.geometry.size(); ++k)
      if (plan_.depthwise[k] != 0 && plan_.geometry[k].depth > 1)
        throw Error("flip (gpu): depthwise flips of volumes are supported by the CPU operator only");
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    MakeFlipDescs(plan_, in, out, descs_);
    kernels::cuda::LaunchCropFlip(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                  Stream(ws));
  }

 private:
  FlipPlan plan_;
  std::vector<CropFlipDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterFlipGpu) { AttachBackend(r, "flip", "gpu", MakeFactory<FlipGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
