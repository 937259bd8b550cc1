// Internal: Highway row kernel of ColorMatrix3 for uint8 -> uint8 (the common case: decoded RGB
// images in, uint8 out).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::color_detail {

// n pixels of interleaved RGB: out_c = saturate_u8(round_even(sum_k m[3c+k] * in_k + off[c])).
void MatrixRowU8(const uint8_t* in, uint8_t* out, size_t n, const float* m, const float* off);

}  // namespace sluice::kernels::color_detail
