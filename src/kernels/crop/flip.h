// Flips an H x W x C image (HWC, packed rows) of any element size.
// Thread-safety: reentrant, no allocation. `in` and `out` hold H*W*C*elem_size bytes and must not
// overlap (use a separate buffer; in-place is not supported).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void Flip(const void* in, void* out, int64_t height, int64_t width, int64_t channels, size_t elem_size,
          bool horizontal, bool vertical);

}  // namespace sluice::kernels
