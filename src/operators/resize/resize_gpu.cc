// resize, device="gpu": the CPU operator's plan (resize_plan.h), then two batched launches
// (horizontal, vertical) per batch. The coefficient tables are computed on the host from the
// plan's parameters by the CPU kernel's own code (resize_gpu_descs.h) and uploaded with the
// descriptors, so the GPU result matches the CPU kernel (uint8 -> uint8 bit for bit; float to
// rounding).
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <functional>

#include "kernels/resize/resize_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/resize/resize_gpu_descs.h"

namespace sluice::gpu {
namespace {

class ResizeGpu : public GpuOperator {
 public:
  explicit ResizeGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    const DType in_type = ws.Input(0).dtype();
    if (in_type != DType::kUInt8 && in_type != DType::kFloat32)
      throw Error("resize: " + std::string(ToString(in_type)) + " images are resized by the CPU operator only");
    PlanResize(*this, args_, ws, plan_);
    return {plan_.output};
  }

  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const int n = in.num_samples();
    auto on_pool = [&](const std::function<void(int)>& fn) { ForEachSample(ws, [&](int i, int) { fn(i); }); };
    descs_.Prepare(plan_, in.dtype(), n, on_pool);
    uint8_t* mid = scratch_.Get(std::max<size_t>(descs_.mid_bytes(), 1), ws.memory());
    auto area = staging_.Prepare(descs_.upload_bytes(), ws.memory());
    descs_.Fill(plan_, in, out, area.host, area.device, mid, on_pool);
    staging_.Upload(descs_.upload_bytes(), Stream(ws));
    const auto* descs = reinterpret_cast<const kernels::cuda::ResizeSampleDesc*>(area.device + descs_.descs_at());
    kernels::cuda::LaunchResize(descs, n, descs_.max_mid(), descs_.max_out(), in.dtype(), plan_.output.dtype,
                                Stream(ws));
  }

 private:
  const ResizeArgs args_;
  ResizePlan plan_;
  ResizeGpuDescs descs_;
  cuda::DeviceScratch scratch_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterResizeGpu) { AttachBackend(r, "resize", "gpu", MakeFactory<ResizeGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
