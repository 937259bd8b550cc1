// crop and flip, device="gpu": the kernel descriptors of a batch (kernels/crop/crop_flip_cuda.h),
// built on the host from the CPU operators' plans by the GPU operators and by the HostGrid tests
// alike. Pointers are the tensors' own.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/crop/crop_flip_cuda.h"
#include "operators/crop/crop_plan.h"
#include "operators/crop/flip_plan.h"

namespace sluice::gpu {

// HWC crop (the GPU operator rejects CHW and volumes in Setup). Returns the largest output
// element count (for the grid).
inline int64_t MakeCropDescs(const CropPlan& plan, const TensorList& in, TensorList& out,
                             std::vector<kernels::cuda::CropFlipDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::CropFlipDesc{});
  int64_t max_el = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    const CropSamplePlan& p = plan.samples[static_cast<size_t>(i)];
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.outer = 1;
    d.in_h = p.in_h;
    d.in_w = p.in_w;
    d.inner = p.channels;
    d.x0 = p.window.x;
    d.y0 = p.window.y;
    d.out_h = d.out ? p.window.h : 0;
    d.out_w = d.out ? p.window.w : 0;
    d.has_fill = !p.fill.empty();
    if (d.has_fill) std::memcpy(d.fill, p.fill.data(), p.fill.size());
    max_el = std::max<int64_t>(max_el, int64_t(p.window.w) * p.window.h * p.channels);
  }
  return max_el;
}

// Any flip but a depthwise one of a volume (rejected in Setup): every depth slice flipped alike.
inline void MakeFlipDescs(const FlipPlan& plan, const TensorList& in, TensorList& out,
                          std::vector<kernels::cuda::CropFlipDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::CropFlipDesc{});
  for (int i = 0; i < in.num_samples(); ++i) {
    const kernels::FlipGeometry& g = plan.geometry[static_cast<size_t>(i)];
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.outer = g.outer * g.depth;
    d.in_h = d.out_h = d.out ? g.height : 0;
    d.in_w = d.out_w = d.out ? g.width : 0;
    d.inner = g.inner;
    d.hflip = plan.horizontal[static_cast<size_t>(i)] != 0;
    d.vflip = plan.vertical[static_cast<size_t>(i)] != 0;
  }
}

}  // namespace sluice::gpu
