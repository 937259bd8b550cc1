// crop_mirror_normalize, device="gpu": the CPU operator's plan (cmn_plan.h), one descriptor per
// sample, one fused kernel launch per batch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"

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
    descs_.assign(static_cast<size_t>(n), kernels::cuda::CmnSampleDesc{});
    int64_t max_px = 0;
    for (int i = 0; i < n; ++i) {
      const CmnSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      auto& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.in_h = p.in_h;
      d.in_w = p.in_w;
      d.channels = p.channels;
      d.crop_x = p.params.crop_x;
      d.crop_y = p.params.crop_y;
      d.out_w = d.in && d.out ? p.params.crop_w : 0;  // an empty sample writes nothing
      d.out_h = d.in && d.out ? p.params.crop_h : 0;
      d.out_channels = p.out_channels;
      d.mirror = p.params.mirror;
      d.fma = kernels::CmnFusedRows(in.dtype(), p.channels, p.params);
      std::copy_n(p.coeffs.a, 4, d.a);
      std::copy_n(p.coeffs.b, 4, d.b);
      std::copy_n(p.coeffs.fill, 4, d.fill);
      max_px = std::max<int64_t>(max_px, int64_t(d.out_w) * d.out_h);
    }
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
