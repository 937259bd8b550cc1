// crop_mirror_normalize, device="gpu": the kernel descriptors of a batch
// (kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h), built on the host from the CPU
// operator's plan by the GPU operator and by the HostGrid tests alike.
#pragma once
#include <algorithm>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/crop_mirror_normalize/crop_mirror_normalize_cuda.h"
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"

namespace sluice::gpu {

// HWC input (CHW input and volumes are rejected in Setup). Returns the largest output pixel count.
inline int64_t MakeCmnDescs(const CmnPlan& plan, const TensorList& in, TensorList& out,
                            std::vector<kernels::cuda::CmnSampleDesc>& descs) {
  const int n = in.num_samples();
  descs.assign(static_cast<size_t>(n), kernels::cuda::CmnSampleDesc{});
  int64_t max_px = 0;
  for (int i = 0; i < n; ++i) {
    const CmnSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.in_h = p.in_h;
    d.in_w = p.in_w;
    d.channels = p.channels;
    d.crop_x = p.params.crop_x;
    d.crop_y = p.params.crop_y;
    d.out_w = d.in && d.out ? p.params.crop_w : 0;  // an empty sample writes nothing
    d.out_h = d.in && d.out ? p.params.crop_h : 0;
    d.out_channels = p.out_channels;
    d.mirror = p.params.mirror;
    d.fma = kernels::CmnFusedRows(in.dtype(), p.channels, p.params);
    std::copy_n(p.coeffs.a, 4, d.a);
    std::copy_n(p.coeffs.b, 4, d.b);
    std::copy_n(p.coeffs.fill, 4, d.fill);
    max_px = std::max<int64_t>(max_px, int64_t(d.out_w) * d.out_h);
  }
  return max_px;
}

}  // namespace sluice::gpu
