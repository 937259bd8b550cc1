// Internal to the colour kernels: uint8 -> uint8 out = in * mul + add with Highway (dynamic
// dispatch), in float as the scalar table does (a multiply, then an add, rounded to nearest, ties
// away from zero, and saturated). ColorAffine (color_adjust.cc) checks it against its 256-entry table for the
// given coefficients and uses it only where every value agrees.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::color_detail {

void AffineU8(const uint8_t* in, uint8_t* out, size_t n, float mul, float add);

}  // namespace sluice::kernels::color_detail
