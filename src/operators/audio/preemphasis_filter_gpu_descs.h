// preemphasis_filter, device="gpu": the kernel descriptors of a batch
// (kernels/audio/preemphasis_cuda.h), built on the host from the CPU operator's plan by the GPU
// operator and by the HostGrid tests alike.
#pragma once
#include <vector>

#include "core/tensor_list.h"
#include "kernels/audio/preemphasis_cuda.h"
#include "operators/audio/preemphasis_filter_plan.h"

namespace sluice::gpu {

inline void MakePreemphasisDescs(const PreemphasisArgs& args, const PreemphasisPlan& plan, const TensorList& in,
                                 TensorList& out, std::vector<kernels::cuda::PreemphasisDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::PreemphasisDesc{});
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.n = d.out ? in.shape(i).num_elements() : 0;
    d.border_index = kernels::PreemphasisBorderIndex(args.border, d.n);
    d.coeff = plan.coeff[static_cast<size_t>(i)];
  }
}

}  // namespace sluice::gpu
