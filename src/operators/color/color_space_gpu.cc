// color_space_conversion, device="gpu": the CPU operator's plan (color_space_plan.h), one
// descriptor per sample, one batched launch; bit for bit the CPU operator's results.
#ifdef SLUICE_WITH_CUDA
#include "kernels/color/color_space_cuda.h"
#include "operators/color/color_space_gpu_descs.h"
#include "operators/color/color_space_plan.h"
#include "operators/gpu/gpu_operator.h"

namespace sluice::gpu {
namespace {

class ColorSpaceGpu : public GpuOperator {
 public:
  explicit ColorSpaceGpu(const OpSpec& spec) : GpuOperator(spec), cs_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanColorSpace(*this, cs_, ws)};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int64_t max_px = MakeColorSpaceDescs(cs_.from, in, ws.Output(0), descs_);
    kernels::cuda::LaunchColorSpace(UploadDescs(descs_, ws), in.num_samples(), max_px, cs_.from, cs_.to, in.dtype(),
                                    Stream(ws));
  }

 private:
  const ColorSpaces cs_;
  std::vector<kernels::cuda::ColorSpaceDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterColorSpaceGpu) {
  AttachBackend(r, "color_space_conversion", "gpu", MakeFactory<ColorSpaceGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
