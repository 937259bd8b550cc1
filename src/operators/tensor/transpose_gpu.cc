// transpose, device="gpu": the CPU operator's plan (transpose_plan.h), one descriptor per
// sample, one batched launch.
#ifdef SLUICE_WITH_CUDA
#include <algorithm>
#include <cstring>

#include "kernels/tensor/transpose_cuda.h"
#include "operators/gpu/gpu_operator.h"
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
    descs_.assign(static_cast<size_t>(in.num_samples()), TransposeDesc{});
    for (int i = 0; i < in.num_samples(); ++i) {
      const auto& dims = in.shape(i).dims();
      const int nd = static_cast<int>(dims.size());
      TransposeDesc& d = descs_[static_cast<size_t>(i)];
      d.in = in.raw_sample(i);
      d.out = out.raw_mutable_sample(i);
      d.ndim = nd;
      int64_t stride[kernels::cuda::kMaxGpuTransposeDims];  // row-major strides of the input
      for (int k = nd - 1; k >= 0; --k) stride[k] = k == nd - 1 ? 1 : stride[k + 1] * dims[static_cast<size_t>(k + 1)];
      for (int k = 0; k < nd; ++k) {
        const int from = args_.perm[static_cast<size_t>(k)];
        d.out_shape[k] = out.shape(i)[k];
        d.in_stride[k] = stride[from];
      }
      if (!d.out || in.shape(i).num_elements() == 0) d.ndim = 1, d.out_shape[0] = 0;
    }
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
