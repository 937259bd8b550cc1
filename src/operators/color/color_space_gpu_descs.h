// color_space_conversion, device="gpu": the kernel descriptors of a batch
// (kernels/color/color_space_cuda.h), built on the host by the GPU operator and by the HostGrid
// tests alike. Returns the largest pixel count (for the grid).
#pragma once
#include <algorithm>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/color/color_space_cuda.h"

namespace sluice::gpu {

inline int64_t MakeColorSpaceDescs(kernels::ColorSpace from, const TensorList& in, TensorList& out,
                                   std::vector<kernels::cuda::ColorSpaceDesc>& descs) {
  descs.assign(static_cast<size_t>(in.num_samples()), kernels::cuda::ColorSpaceDesc{});
  int64_t max_px = 0;
  for (int i = 0; i < in.num_samples(); ++i) {
    auto& d = descs[static_cast<size_t>(i)];
    d.in = in.raw_sample(i);
    d.out = out.raw_mutable_sample(i);
    d.pixels = d.out ? in.shape(i).num_elements() / kernels::ColorSpaceChannels(from) : 0;
    max_px = std::max(max_px, d.pixels);
  }
  return max_px;
}

}  // namespace sluice::gpu
