// DALI's grid_mask (dali/kernels/mask/grid_mask_cpu.h; GridMask, arXiv:2001.04086): an HWC image is
// multiplied by a mask of squares repeating every `tile` pixels, rotated by `angle` (radians) around
// the origin and shifted by (shift_x, shift_y) after the rotation. With ca = cos(angle) / tile,
// sa = sin(angle) / tile, sx = shift_x / tile, sy = shift_y / tile:
//   fx = -sx - y * sa + x * ca,  fy = -sy + y * ca + x * sa
//   keep(y, x) = frac(fx) >= ratio || frac(fy) >= ratio      (frac(v) = v - floor(v))
// and masked pixels become 0 in every channel. Computed in float32 like DALI.
// Element types: uint8, int16, int32, float32 (any, in fact: the mask only copies or zeroes).
// Thread-safety: reentrant, no allocation.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels {

struct GridMaskParams {
  int tile = 100;
  float ratio = 0.5f, angle = 0.f, shift_x = 0.f, shift_y = 0.f;
};

void GridMask(const void* in, void* out, DType type, int64_t height, int64_t width, int64_t channels,
              const GridMaskParams& p);

}  // namespace sluice::kernels
