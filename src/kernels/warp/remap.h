// Remap of 2-D images by per-pixel source coordinates, as DALI's experimental.remap defines it
// (GPU-only in DALI, CV-CUDA's Remap; this is the CPU version): out(x, y) = in sampled at
// (mapx(y, x) - shift, mapy(y, x) - shift) in OpenCV's convention (pixel centres at integers), with
// shift = 0.5 for DALI's pixel_origin="corner" (its default) and 0 for "center" (OpenCV's remap).
// Sampling as kernels/warp/sample2d.h (nearest, linear, cubic; uint8 RGB nearest and linear with
// shift 0 or 0.5 by sample2d_u8c3.h's SIMD path, linear in fixed point within 1 of the float32
// result); outside the image the value is 0
// (DALI: border always constant 0). Maps are float32, one value per output pixel, row-major with
// `map_stride` elements between rows. Types uint8, int16, uint16, float32; HWC, CHW or HW views.
// Thread-safety: reentrant, allocates nothing but a fill vector. `in` and `out` must not overlap.
#pragma once
#include <cstdint>

#include "kernels/filter/convolution.h"
#include "kernels/warp/warp_perspective.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

void Remap(const void* in, const ImageGeom& in_geom, void* out, const ImageGeom& out_geom, DType type,
           const float* mapx, const float* mapy, int64_t map_stride, PerspectiveInterp interp, float shift);

}  // namespace sluice::kernels
