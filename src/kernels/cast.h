// Element type conversion between any two DTypes (DALI `cast`):
//   - integer targets saturate; from floating point they round to nearest, ties to even; NaN -> 0;
//   - bool targets are (v != 0); bool sources are 0/1;
//   - float16 goes through float (round to nearest even).
// Thread-safety: reentrant, no allocation. in holds n elements of in_type, out n of out_type;
// in and out may be the same buffer only when the two types have the same size.
#pragma once
#include <cstddef>

#include "sluice/dtype.h"

namespace sluice::kernels {

void Cast(const void* in, DType in_type, void* out, DType out_type, size_t n);

// One value, the same rules (exposed for operators that convert scalars, e.g. fill values).
template <typename To, typename From>
To ConvertSaturate(From v);

}  // namespace sluice::kernels

#include "kernels/cast-inl.h"
