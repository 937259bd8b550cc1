// Vectorized paths of `Cast` (cast.h) for the conversions that dominate pipelines; each gives the
// scalar CastValue's bytes exactly (tested on every target against it).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::cast_detail {

// float -> uint8 with CastValue's rule: ties away from zero, saturated to 0..255, NaN -> 0.
// The scalar loop calls roundf per element (a libm call GCC does not vectorize): ~15x slower.
void FloatToU8(const float* in, uint8_t* out, size_t n);

}  // namespace sluice::kernels::cast_detail
