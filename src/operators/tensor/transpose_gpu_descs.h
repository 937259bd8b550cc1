// transpose, device="gpu": the kernel descriptors of a batch (kernels/tensor/transpose_cuda.h),
// built on the host by the GPU operator and by the HostGrid tests alike.
#pragma once
#include <vector>

#include "core/tensor_list.h"
#include "kernels/tensor/transpose_cuda.h"

namespace sluice::gpu {

// perm: output dim k is input dim perm[k] (TransposeArgs::perm, at most kMaxGpuTransposeDims).
inline void MakeTransposeDescs(const std::vector<int>& perm, const TensorList& in, TensorList& out,
                               std::vector<kernels::cuda::TransposeDesc>& descs) {
  constexpr int kMax = kernels::cuda::kMaxGpuTransposeDims;
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::TransposeDesc{});
  for (int i = 0; i < in.num_samples(); ++i) {
    const auto& dims = in.shape(i).dims();
    const int nd = static_cast<int>(dims.size());
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.ndim = nd;
    int64_t stride[kMax];  // row-major strides of the input
    for (int k = nd - 1; k >= 0; --k) stride[k] = k == nd - 1 ? 1 : stride[k + 1] * dims[static_cast<size_t>(k + 1)];
    for (int k = 0; k < nd; ++k) {
      d.out_shape[k] = out.shape(i)[k];
      d.in_stride[k] = stride[perm[static_cast<size_t>(k)]];
    }
    if (!d.out || in.shape(i).num_elements() == 0) d.ndim = 1, d.out_shape[0] = 0;
  }
}

}  // namespace sluice::gpu
