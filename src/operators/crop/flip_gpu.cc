// flip, device="gpu": the CPU operator's plan (flip_plan.h), one descriptor per sample, one
// batched launch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/crop/crop_flip_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/crop/flip_plan.h"

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
    descs_.assign(static_cast<size_t>(in.num_samples()), CropFlipDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      const kernels::FlipGeometry& g = plan_.geometry[static_cast<size_t>(i)];
      CropFlipDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.outer = g.outer * g.depth;  // no depthwise flip here (Setup): every depth slice flipped alike
      d.in_h = d.out_h = d.out ? g.height : 0;
      d.in_w = d.out_w = d.out ? g.width : 0;
      d.inner = g.inner;
      d.hflip = plan_.horizontal[static_cast<size_t>(i)] != 0;
      d.vflip = plan_.vertical[static_cast<size_t>(i)] != 0;
    }
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
