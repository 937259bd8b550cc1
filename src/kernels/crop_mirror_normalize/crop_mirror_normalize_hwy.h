// Internal: Highway row kernel of crop_mirror_normalize for the main case (uint8 RGB -> float CHW).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cmn_detail {

// n output pixels; src points at the source pixel of the first output (for mirror the sources
// then go right-to-left). o_c[i] = src_i[c] * a[c] + b[c].
void RowU8ToF32Planar3(const uint8_t* src, bool mirror, int n, const float* a, const float* b, float* o0,
                       float* o1, float* o2);

// Same, interleaved output: o[3*i + c].
void RowU8ToF32Interleaved3(const uint8_t* src, bool mirror, int n, const float* a, const float* b, float* o);

// Converts n floats to `t` (kFloat16, kUInt8 or kInt8): integers round to nearest even and
// saturate (NaN -> 0), float16 rounds to nearest even.
void ConvertFloatRow(const float* in, size_t n, DType t, void* out);

}  // namespace sluice::kernels::cmn_detail
