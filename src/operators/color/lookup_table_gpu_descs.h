// lookup_table, device="gpu": the kernel descriptors of a batch (kernels/color/lookup_table_cuda.h),
// built on the host by the GPU operator and by the HostGrid tests alike. Returns the largest
// element count (for the grid).
#pragma once
#include <algorithm>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/color/lookup_table_cuda.h"

namespace sluice::gpu {

inline int64_t MakeLookupTableDescs(const TensorList& in, TensorList& out,
                                    std::vector<kernels::cuda::LookupTableDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::LookupTableDesc{});
  int64_t max_el = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.n = d.out ? in.shape(i).num_elements() : 0;
    max_el = std::max(max_el, d.n);
  }
  return max_el;
}

}  // namespace sluice::gpu
