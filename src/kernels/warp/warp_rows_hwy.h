// Internal: Highway fast paths of WarpAffine for uint8 -> uint8 RGB (3 interleaved channels), linear
// and nearest. Bit-identical to warp_affine.cc's scalar RowLinear/RowNearest: the same
// double-precision source coordinates (multiply, then add: never fused), floor, float32 weights and
// blend in the same order, and the same rounding (half away from zero) and saturation.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::warp_detail {

// One call: output pixels [x_begin, x_end) of one output row y, sampled at
// (m00 * (x + 0.5) + bx, m10 * (x + 0.5) + by), with bx = m01 * (y + 0.5) + m02 and
// by = m11 * (y + 0.5) + m12 as warp_affine.cc computes them.
struct WarpRowU8C3 {
  const uint8_t* in;        // the input image, in_h x in_w x 3
  int64_t in_h, in_w;
  uint8_t* row;             // the output row
  int64_t x_begin, x_end;
  double m00, m10, bx, by;
  int64_t* fallback;        // out: the first output x of each group that needs the scalar path
                            // (room for (x_end - x_begin) / WarpRowGroupSize() + 1 entries)
};

// Samples every group of WarpRowGroupSize() output pixels whose 2x2 taps all lie inside the
// image (and whose 4-byte tap loads stay within the image's bytes); returns the number of other
// groups, listed in `fallback` (each starts at that x and spans WarpRowGroupSize() pixels, or up to
// x_end).
size_t WarpLinearRowU8C3(const WarpRowU8C3& a);
// The same for nearest sampling: groups whose source pixels all lie inside the image.
size_t WarpNearestRowU8C3(const WarpRowU8C3& a);
// Output pixels per group (the double lanes of the chosen target).
size_t WarpRowGroupSize();

}  // namespace sluice::kernels::warp_detail
