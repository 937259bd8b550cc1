// Internal: Highway rows of RankFilter2D (rank_filter.cc). Exact: min, max and compare-exchange.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::morph_detail {

// out[e] = min (or max) over j < k of src[j][e], e < n; T is `type` (uint8, int16, uint16, float32).
void ExtremumOfRows(const void* const* src, int k, int64_t n, bool is_max, DType type, void* out);

// out[e] = the value at position `rank` after the compare-exchange network `pairs` (a, b: min to a,
// max to b) over the window values src[i][e + j * step] (window element i * kw + j, kh rows).
// Windows of up to kMaxNetwork elements.
inline constexpr int kMaxNetwork = 64;
void MedianOfRows(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs,
                  int npairs, int rank, DType type, void* out);

}  // namespace sluice::kernels::morph_detail
