// A strided window of an N-D array, copied: out[j0, ..., jn-1] = in[lo0 + j0 * step0, ...]. The
// kernel of DataNode indexing (tensor_subscript): steps may be negative, and every index the
// window reaches must lie inside `in_shape` (the caller has resolved and clamped the ranges).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace sluice::kernels {

// `in_shape`, `lo`, `step` and `out_shape` have one entry per dimension (at most 32; none for a
// scalar); elements are `elem_bytes` bytes, rows are dense (C order). Runs of the innermost
// dimensions that are taken whole are copied as one block.
void StridedCopy(const void* in, std::span<const int64_t> in_shape, std::span<const int64_t> lo,
                 std::span<const int64_t> step, std::span<const int64_t> out_shape, void* out, size_t elem_bytes);

}  // namespace sluice::kernels
