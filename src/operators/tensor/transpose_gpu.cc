// transpose, device="gpu": the CPU operator's plan (transpose_plan.h), one descriptor per
// sample, one batched launch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/tensor/transpose_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/tensor/transpose_gpu_descs.h"
#include "operators/tensor/transpose_plan.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::TransposeDesc;

class TransposeGpu : public GpuOperator {
 public:
  explicit TransposeGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {
    if (args_.perm.size() > static_cast<size_t>(kernels::cuda::kMaxGpuTransposeDims))
      ThrowArgError("perm", "at most " + std::to_string(kernels::cuda::kMaxGpuTransposeDims) + " dimensions on the GPU");
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanTranspose(*this, args_, ws)};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    MakeTransposeDescs(args_.perm, in, out, descs_);
    kernels::cuda::LaunchTranspose(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), SizeOf(in.dtype()),
                                   Stream(ws));
  }

 private:
  const TransposeArgs args_;
  std::vector<TransposeDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterTransposeGpu) { AttachBackend(r, "transpose", "gpu", MakeFactory<TransposeGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
