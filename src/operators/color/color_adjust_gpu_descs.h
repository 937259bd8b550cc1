// The colour adjustments, device="gpu": the kernel descriptors of a batch
// (kernels/color/color_adjust_cuda.h) from the CPU operators' plans (color_adjust_plan.h), built
// on the host by the GPU operators and by the HostGrid tests alike. Each returns the largest
// per-sample count (elements, pixels) for the grid.
#pragma once
#include <algorithm>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/color/color_adjust_cuda.h"
#include "operators/color/color_adjust_plan.h"

namespace sluice::gpu {

inline int64_t MakeColorAffineDescs(const ColorAffinePlan& plan, const TensorList& in, TensorList& out,
                                    std::vector<kernels::cuda::ColorAffineDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::ColorAffineDesc{});
  int64_t max_el = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.n = d.out ? in.shape(i).num_elements() : 0;
    d.mul = plan.coeffs[static_cast<size_t>(i)].mul;
    d.add = plan.coeffs[static_cast<size_t>(i)].add;
    max_el = std::max(max_el, d.n);
  }
  return max_el;
}

inline int64_t MakeColorMatrixDescs(const ColorTwistPlan& plan, const TensorList& in, TensorList& out,
                                    std::vector<kernels::cuda::ColorMatrixDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::ColorMatrixDesc{});
  int64_t max_px = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    const kernels::ColorTransform& t = plan.transforms[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.pixels = d.out ? in.shape(i).num_elements() / 3 : 0;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) d.m[r][c] = t.m[r][c];
      d.offset[r] = t.offset[r];
    }
    max_px = std::max(max_px, d.pixels);
  }
  return max_px;
}

}  // namespace sluice::gpu
