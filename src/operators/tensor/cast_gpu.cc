// cast, device="gpu": one descriptor per sample, one batched launch (cast_plan.h for the output).
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/tensor/cast_cuda.h"
#include "operators/gpu/gpu_operator.h"
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
    descs_.assign(static_cast<size_t>(in.num_samples()), CastDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      CastDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.n = d.out ? in.shape(i).num_elements() : 0;
    }
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
