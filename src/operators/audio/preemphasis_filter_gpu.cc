// preemphasis_filter, device="gpu": the CPU operator's plan (preemphasis_filter_plan.h), one
// descriptor per sample, one batched launch (kernels/audio/preemphasis_cuda.h).
#ifdef SLUICE_WITH_CUDA
#include "kernels/audio/preemphasis_cuda.h"
#include "operators/audio/preemphasis_filter_gpu_descs.h"
#include "operators/gpu/gpu_operator.h"

namespace sluice::gpu {
namespace {

using kernels::cuda::PreemphasisDesc;

class PreemphasisFilterGpu : public GpuOperator {
 public:
  explicit PreemphasisFilterGpu(const OpSpec& spec) : GpuOperator(spec), args_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    RequireStream(ws);
    PlanPreemphasis(*this, args_, ws, plan_);
    return {plan_.output};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    MakePreemphasisDescs(args_, plan_, in, out, descs_);
    kernels::cuda::LaunchPreemphasis(UploadDescs(descs_, ws), in.num_samples(), MaxElements(in), in.dtype(),
                                     args_.out_type, Stream(ws));
  }

 private:
  const PreemphasisArgs args_;
  PreemphasisPlan plan_;
  std::vector<PreemphasisDesc> descs_;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterPreemphasisFilterGpu) {
  AttachBackend(r, "preemphasis_filter", "gpu", MakeFactory<PreemphasisFilterGpu>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
