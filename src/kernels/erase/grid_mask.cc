#include "kernels/erase/grid_mask.h"

#include <cmath>
#include <cstring>

namespace sluice::kernels {

void GridMask(const void* in, void* out, DType type, int64_t height, int64_t width, int64_t channels,
              const GridMaskParams& p) {
  const size_t pixel_bytes = static_cast<size_t>(channels) * SizeOf(type);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  const float tile = static_cast<float>(p.tile);
  const float ca = std::cos(p.angle) / tile, sa = std::sin(p.angle) / tile;
  const float sx = p.shift_x / tile, sy = p.shift_y / tile;
  for (int64_t y = 0; y < height; ++y) {
    const float fxy = -sx + static_cast<float>(y) * -sa;
    const float fyy = -sy + static_cast<float>(y) * ca;
    for (int64_t x = 0; x < width; ++x) {
      const float fx = fxy + static_cast<float>(x) * ca;
      const float fy = fyy + static_cast<float>(x) * sa;
      const bool keep = (fx - std::floor(fx) >= p.ratio) || (fy - std::floor(fy) >= p.ratio);
      const size_t off = static_cast<size_t>(y * width + x) * pixel_bytes;
      // Zero bytes are 0 for every supported type (integers and IEEE floats).
      if (keep) std::memcpy(dst + off, src + off, pixel_bytes);
      else std::memset(dst + off, 0, pixel_bytes);
    }
  }
}

}  // namespace sluice::kernels
