// Flips images and volumes along their width, height and depth axes, any element size.
// The data is `outer` blocks of depth x height x width pixels of `inner` elements each, packed:
//   HWC  outer 1, depth 1, inner C      CHW  outer C, depth 1, inner 1
//   DHWC outer 1, depth D, inner C      CDHW outer C, depth D, inner 1
// Output pixel (z, y, x) of each block is input pixel (z', y', x') with z' = depth-1-z when
// `depthwise` (else z), y' and x' likewise for `vertical` and `horizontal`.
// Thread-safety: reentrant, no allocation. `in` and `out` hold outer*depth*height*width*inner*
// elem_size bytes and must not overlap (in-place is not supported).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

struct FlipGeometry {
  int64_t outer = 1, depth = 1, height = 0, width = 0, inner = 1;
};

void FlipVolume(const void* in, void* out, const FlipGeometry& g, size_t elem_size, bool horizontal, bool vertical,
                bool depthwise);

// An H x W x C image (HWC): FlipVolume with outer 1, depth 1, inner C.
void Flip(const void* in, void* out, int64_t height, int64_t width, int64_t channels, size_t elem_size,
          bool horizontal, bool vertical);

}  // namespace sluice::kernels
