// DebayerEdgeAware: OpenCV's edge-aware demosaicing (kernels/color/debayer.h has the contract).
// Written in OpenCV's BGR terms: the RGB result for blue_position (by, bx) is OpenCV's BGR result for
// the opposite pattern (1 - by, 1 - bx), channel for channel in memory.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "kernels/color/debayer.h"

#include <type_traits>

#include "kernels/color/debayer_rows_hwy.h"

namespace sluice::kernels {

template <typename T>
void DebayerEdgeAware(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x) {
  if (h <= 2 || w <= 2) {
    std::fill(out, out + h * w * 3, T{0});
    return;
  }
  // Row 1 starts with green when the pattern's first row pairs differ; `blue` (0 or 1) says whether
  // the red-or-blue pixels of the row go to channel 0 (1) or channel 2 (0) as OpenCV writes BGR.
  const int green_first0 = (blue_y ^ blue_x) & 1, blue0 = blue_y & 1;
  for (int64_t y = 1; y < h - 1; ++y) {
    const int flip = static_cast<int>((y - 1) & 1);
    const int green_first = green_first0 ^ flip, blue = blue0 ^ flip;
    const T* up = in + (y - 1) * w;
    const T* mid = in + y * w;
    const T* down = in + (y + 1) * w;
    T* row = out + y * w * 3;
    const int own = 2 - 2 * blue, other = 2 * blue;  // channel of the pixel's colour, of the diagonal one
    auto colour = [&](int64_t x) {
      T* px = row + x * 3;
      const int dh = std::abs(int(mid[x - 1]) - int(mid[x + 1]));
      const int dv = std::abs(int(down[x]) - int(up[x]));
      px[own] = mid[x];
      px[1] = static_cast<T>(dh > dv ? (unsigned(up[x]) + down[x] + 1) >> 1 : (unsigned(mid[x - 1]) + mid[x + 1] + 1) >> 1);
      px[other] = static_cast<T>((unsigned(up[x - 1]) + up[x + 1] + down[x - 1] + down[x + 1] + 2) >> 2);
    };
    auto green = [&](int64_t x) {  // the vertical pair to `other`, the horizontal one to `own`
      T* px = row + x * 3;
      px[1] = mid[x];
      px[other] = static_cast<T>((unsigned(up[x]) + down[x] + 1) >> 1);
      px[own] = static_cast<T>((unsigned(mid[x - 1]) + mid[x + 1] + 1) >> 1);
    };
    int64_t x = 1;
    if (green_first) green(x++);
    if constexpr (std::is_same_v<T, uint8_t>)
      x += 2 * debayer_detail::DebayerPairsU8(up, mid, down, row, x, (w - 1 - x) / 2, own, /*edge_aware=*/true);
    for (; x + 1 < w - 1; x += 2) {  // pairs: red-or-blue, then green
      colour(x);
      green(x + 1);
    }
    if (x < w - 1) colour(x);
    std::memcpy(row + (w - 1) * 3, row + (w - 2) * 3, 3 * sizeof(T));
    std::memcpy(row, row + 3, 3 * sizeof(T));
  }
  std::memcpy(out, out + w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
  std::memcpy(out + (h - 1) * w * 3, out + (h - 2) * w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
}

template void DebayerEdgeAware<uint8_t>(const uint8_t*, uint8_t*, int64_t, int64_t, int, int);
template void DebayerEdgeAware<uint16_t>(const uint16_t*, uint16_t*, int64_t, int64_t, int, int);

}  // namespace sluice::kernels
