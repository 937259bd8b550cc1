// Internal: Highway row kernel of ColorMatrix3 for uint8 -> uint8 (the common case: decoded RGB
// images in, uint8 out).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

namespace sluice::kernels::color_detail {

// The matrix in fixed point: out_c = saturate_u8((sum_k m[3c+k] * in_k + off[c]) >> shift), where
// m holds the float coefficients times 2^shift and off the offset times 2^shift plus the rounding
// half. Integer arithmetic gives the same bytes on every SIMD target; with shift >= 12 a result is
// within 3 * 255 * 2^-13 + 2^-13 < 0.1 of the float one before rounding, so within 1 LSB of it.
struct MatrixFixedU8 {
  int16_t m[9];
  int32_t off[3];
  int shift;
};
inline constexpr int kMatrixMaxShift = 14, kMatrixMinShift = 12;

// The fixed-point form with the most fraction bits in [12, 14] that holds every coefficient in
// int16; nullopt where none does (a coefficient of magnitude 8 or more, or a huge offset).
std::optional<MatrixFixedU8> QuantizeMatrix(const float* m, const float* off);

// n pixels of interleaved RGB, in fixed point.
void MatrixRowU8Fixed(const uint8_t* in, uint8_t* out, size_t n, const MatrixFixedU8& q);

// n pixels of interleaved RGB: out_c = saturate_u8(round_even(sum_k m[3c+k] * in_k + off[c])).
// Fixed point where QuantizeMatrix gives a form, else float.
void MatrixRowU8(const uint8_t* in, uint8_t* out, size_t n, const float* m, const float* off);

}  // namespace sluice::kernels::color_detail
