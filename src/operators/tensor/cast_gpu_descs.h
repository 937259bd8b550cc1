// cast, device="gpu": the kernel descriptors of a batch (kernels/tensor/cast_cuda.h), built on the
// host by the GPU operator and by the HostGrid tests alike. Pointers are the tensors' own (device
// memory for the GPU operator, host memory for the host grid runner).
#pragma once
#include <vector>

#include "core/tensor_list.h"
#include "kernels/tensor/cast_cuda.h"

namespace sluice::gpu {

inline void MakeCastDescs(const TensorList& in, TensorList& out, std::vector<kernels::cuda::CastDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::CastDesc{});
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.n = d.out ? in.shape(i).num_elements() : 0;
  }
}

}  // namespace sluice::gpu
