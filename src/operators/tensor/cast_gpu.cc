// cast, device="gpu": one descriptor per sample, one batched launch (cast_plan.h for the output).
#ifdef SLUICE_WITH_CUDA

#include "kernels/tensor/cast_cuda.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/tensor/cast_gpu_descs.h"
#include "operators/tensor/cast_plan.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::CastDesc;

class CastGpu : public GpuOperator {
 public:
  explicit CastGpu(const OpSpec& spec) : GpuOperator(spec), to_(Arg<DType>("dtype")) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    return {PlanCast(to_, ws)};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    MakeCastDescs(in, out, descs_);
    kernels::cuda::LaunchCast(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), in.dtype(), to_, Stream(ws));
  }

 private:
  DType to_;
  std::vector<CastDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterCastGpu) { AttachBackend(r, "cast", "gpu", MakeFactory<CastGpu>()); }

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
