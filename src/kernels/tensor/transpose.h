// N-d transpose (DALI `transpose`): output dim i = input dim perm[i]; any element size.
// Fast paths for HWC <-> CHW (perm {2,0,1} / {1,2,0}) with 1-, 2- and 4-byte elements.
// Thread-safety: reentrant, no allocation (up to kMaxTransposeDims dims). Buffers hold
// prod(shape)*elem_size bytes; in and out must not overlap.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace sluice::kernels {

inline constexpr int kMaxTransposeDims = 16;

// Validates perm (a permutation of 0..ndim-1) and writes the output shape. Throws sluice::Error.
void TransposedShape(std::span<const int64_t> in_shape, std::span<const int> perm, std::span<int64_t> out_shape);

void Transpose(const void* in, void* out, std::span<const int64_t> in_shape, std::span<const int> perm,
               size_t elem_size);

}  // namespace sluice::kernels
