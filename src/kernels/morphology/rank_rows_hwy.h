// Internal: Highway rows of RankFilter2D (rank_filter.cc). Exact: min, max and compare-exchange.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::morph_detail {

// Minimum (or maximum) over a kw x kh rectangle for one or two output rows, separably: the column
// pass first (rows[0 .. kh) for out0, rows[1 .. kh] for out1, the kh - 1 rows in common combined
// once), into a row padded by the window's margins, whose margin elements come from the border
// table xs (padded column k in [0, width + kw - 1) -> source column, -1: `fill`), then the row pass
// (direct for small kw; for larger kw by doubling: windows of 2, 4, 8 ... then two overlapping ones,
// about log2(kw) passes instead of kw - 1). Elements of a pixel are ci apart (interleaved
// channels: ci = channels; a plane: 1); n = width * ci; out1 == nullptr: one row (rows[kh] unread).
// tmp: MorphTmpElements(width, kw, ci, type) elements of the type. fill points to one value of the type.
int64_t MorphTmpElements(int64_t width, int kw, int64_t ci, DType type);
void MorphRows(const void* const* rows, int kh, int kw, int ax, int64_t ci, int64_t width, const int64_t* xs,
               const void* fill, bool is_max, DType type, void* tmp, void* out0, void* out1);

// The 3x3 median (replicated border) of one or two output rows: each column's three values sorted
// (rows[1] and rows[2] compared once for both rows), then the median of the nine is
// med3(max of the column minima, med3 of the column medians, min of the column maxima), exact
// (Paeth's identity), about 17 min/max per output instead of a 19-comparator network. Columns are
// sorted in chunks so the six sorted rows stay in the L1 cache. rows: 4 source rows (rows[3]
// unread when out1 == nullptr); n = width * ci elements; tmp: Median3x3TmpElements(ci) elements.
int64_t Median3x3TmpElements(int64_t ci, DType type);
// The chunk (elements): about 4 KiB, a multiple of ci.
inline int64_t Median3x3Chunk(int64_t ci, size_t elem_size) {
  const int64_t base = 4096 / int64_t(elem_size);
  return (base + ci - 1) / ci * ci;
}
// 64 bytes in elements, and the elements of one sorted row in the scratch (aligned lead of at least
// ci before the chunk, ci after it, a stagger of 64 bytes between rows).
inline int64_t Median3x3Align(size_t elem_size) { return 64 / int64_t(elem_size); }
inline int64_t Median3x3Stride(int64_t ci, size_t elem_size) {
  const int64_t a = Median3x3Align(elem_size);
  return ((ci + a - 1) / a + (Median3x3Chunk(ci, elem_size) + ci + a - 1) / a + 1) * a;
}
void Median3x3Rows(const void* const* rows, int64_t ci, int64_t n, DType type, void* tmp, void* out0, void* out1);

// out[e] = the value at position `rank` after the compare-exchange network `pairs` (a, b: min to a,
// max to b) over the window values src[i][e + j * step] (window element i * kw + j, kh rows).
// Windows of up to kMaxNetwork elements.
inline constexpr int kMaxNetwork = 64;
void MedianOfRows(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs,
                  int npairs, int rank, DType type, void* out);

}  // namespace sluice::kernels::morph_detail
