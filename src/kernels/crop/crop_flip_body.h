// crop and flip's kernel body and launcher (crop_flip_cuda.h's descriptors), shared by
// crop_flip.cu and the host grid runner: one thread per output element, any element size.
#pragma once
#include <cstdint>

#include "kernels/crop/crop_flip_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

template <typename T>
struct CropFlipBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const CropFlipDesc* descs) {
    const CropFlipDesc& d = descs[g.block_idx.y];
    const int64_t inner = d.inner;
    const int64_t row = d.out_w * inner, plane = d.out_h * row, total = d.outer * plane;
    const auto* in = static_cast<const T*>(d.in);
    auto* out = static_cast<T*>(d.out);
    const T* fill = reinterpret_cast<const T*>(d.fill);
    for (int64_t i = g.GlobalX(); i < total; i += g.StrideX()) {
      const int64_t o = i / plane;
      int64_t r = i - o * plane;
      const int64_t y = r / row;
      r -= y * row;
      const int64_t x = r / inner, c = r - x * inner;
      const int64_t sy = d.y0 + (d.vflip ? d.out_h - 1 - y : y);
      const int64_t sx = d.x0 + (d.hflip ? d.out_w - 1 - x : x);
      T v;
      if (sy >= 0 && sy < d.in_h && sx >= 0 && sx < d.in_w) v = in[((o * d.in_h + sy) * d.in_w + sx) * inner + c];
      else if (d.has_fill) v = fill[c];
      else v = T(0);
      out[i] = v;
    }
  }
};

template <typename Exec>
void RunCropFlip(Exec& exec, const CropFlipDesc* descs, int n, int64_t max_el, size_t elem_size) {
  if (n <= 0 || max_el <= 0) return;
  const grid::Dim3 dims = grid::BatchGrid(max_el, n, grid::kDefaultBlock);
  constexpr int b = grid::kDefaultBlock;
  switch (elem_size) {
    case 1: return exec.template Run<CropFlipBody<uint8_t>>(dims, b, descs);
    case 2: return exec.template Run<CropFlipBody<uint16_t>>(dims, b, descs);
    case 4: return exec.template Run<CropFlipBody<uint32_t>>(dims, b, descs);
    case 8: return exec.template Run<CropFlipBody<uint64_t>>(dims, b, descs);
    default: throw Error("crop/flip (gpu): unsupported element size " + std::to_string(elem_size));
  }
}

}  // namespace sluice::kernels::cuda
