// Internal to flip.cc: the horizontal flip of one row with Highway (dynamic dispatch). Pixels of
// 1, 2, 3, 4 or 8 bytes; 16 bytes (pixel sizes 1, 2, 4, 8) or 16 pixels (3 bytes: RGB uint8) per
// step, each a 16-byte byte shuffle of the source block. Pure copies: the result is the scalar
// loop's, byte for byte.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::flip_detail {

// Writes output pixels [0, k) of a row of `w` pixels of `px` bytes, out pixel x = in pixel w-1-x,
// and returns k (0 where the pixel size or the target has no vector path; the caller does the
// rest). `in` and `out` must not overlap.
size_t ReverseRowVec(const uint8_t* in, uint8_t* out, size_t w, size_t px);

}  // namespace sluice::kernels::flip_detail
