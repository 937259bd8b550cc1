// Internal: Highway row kernel of ColorMatrix3 for uint8 -> uint8 (the common case: decoded RGB
// images in, uint8 out).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::color_detail {

// n pixels of interleaved RGB: out_c = saturate_u8(round(((r * m[3c] + g * m[3c+1]) + b * m[3c+2]) +
// off[c])), every operation in float32 on its own (no fused multiply-add) and ties rounded away from
// zero: DALI's CPU LinearTransformation (its mat * vec dot products, then the offset, then
// ConvertSat), so results are DALI's bit for bit, and the same on every SIMD target.
void MatrixRowU8(const uint8_t* in, uint8_t* out, size_t n, const float* m, const float* off);

}  // namespace sluice::kernels::color_detail
