// Copies a window of an H x W x C image (HWC, packed rows, any element size) into out
// (h x w x C). The window may extend past the image: those pixels are set to `fill_pixel`
// (C*elem_size bytes) or zero when it is null.
// Thread-safety: reentrant, no allocation. in and out must not overlap.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void Crop(const void* in, int64_t height, int64_t width, int64_t channels, size_t elem_size, int64_t x, int64_t y,
          int64_t w, int64_t h, void* out, const void* fill_pixel = nullptr);

// The same for a D x H x W x C volume (DHWC): output slice k (of d) is the window of input slice
// z + k, or all `fill_pixel` (zero) when z + k is outside [0, D).
void CropVolume(const void* in, int64_t depth, int64_t height, int64_t width, int64_t channels, size_t elem_size,
                int64_t z, int64_t d, int64_t x, int64_t y, int64_t w, int64_t h, void* out,
                const void* fill_pixel = nullptr);

}  // namespace sluice::kernels
