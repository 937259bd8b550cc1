// crop_mirror_normalize, device="gpu": the CPU operator's plan (cmn_plan.h), one descriptor per
// sample, one fused kernel launch per batch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_gpu_descs.h"

namespace sluice::gpu {
namespace {

class CropMirrorNormalizeGpu : public GpuOperator {
 public:
  explicit CropMirrorNormalizeGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanCropMirrorNormalize(*this, args_, ws, plan_);
    if (plan_.volume) throw Error("crop_mirror_normalize (gpu): volumes are supported by the CPU operator only");
    if (plan_.channels_first)
      throw Error("crop_mirror_normalize (gpu): CHW input is supported by the CPU operator only");
    return {plan_.output};
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int n = in.num_samples();
    const int64_t max_px = MakeCmnDescs(plan_, in, out, descs_);
    kernels::cuda::LaunchCropMirrorNormalize(UploadDescs(descs_, ws), n, max_px, in.dtype(), args_.out_type,
                                             args_.layout[0] == 'C', Stream(ws));
  }

 private:
  const CmnArgs args_;
  CmnPlan plan_;
  std::vector<kernels::cuda::CmnSampleDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterCropMirrorNormalizeGpu) {
  AttachBackend(r, "crop_mirror_normalize", "gpu", MakeFactory<CropMirrorNormalizeGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
