// crop, device="gpu": the CPU operator's plan (crop_plan.h), one descriptor per sample, one
// batched launch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/crop/crop_flip_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop/crop_plan.h"

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
    descs_.assign(static_cast<size_t>(in.num_samples()), CropFlipDesc{});
    int64_t max_el = 0;
    for (int i = 0; i < in.num_samples(); ++i) {
      const CropSamplePlan& p = plan_.samples[static_cast<size_t>(i)];
      CropFlipDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.outer = 1;
      d.in_h = p.in_h;
      d.in_w = p.in_w;
      d.inner = p.channels;
      d.x0 = p.window.x;
      d.y0 = p.window.y;
      d.out_h = d.out ? p.window.h : 0;
      d.out_w = d.out ? p.window.w : 0;
      d.has_fill = !p.fill.empty();
      if (d.has_fill) std::memcpy(d.fill, p.fill.data(), p.fill.size());
      max_el = std::max<int64_t>(max_el, int64_t(p.window.w) * p.window.h * p.channels);
    }
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
