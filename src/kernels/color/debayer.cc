#include "kernels/color/debayer.h"

#include <algorithm>
#include <cstring>

namespace sluice::kernels {

template <typename T>
void DebayerBilinear(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x) {
  if (h < 3 || w < 3) {
    std::fill(out, out + h * w * 3, T{0});
    return;
  }
  const int red_y = blue_y & 1, red_x = blue_x & 1, b_y = (1 + blue_y) & 1, b_x = (1 + blue_x) & 1;
  enum { kR = 0, kG = 1, kB = 2 };
  for (int64_t y = 1; y < h - 1; ++y) {
    const T* up = in + (y - 1) * w;
    const T* mid = in + y * w;
    const T* down = in + (y + 1) * w;
    T* row = out + y * w * 3;
    for (int64_t x = 1; x < w - 1; ++x) {
      T* px = row + x * 3;
      const int yp = static_cast<int>(y & 1), xp = static_cast<int>(x & 1);
      const unsigned cross = (unsigned(up[x]) + down[x] + mid[x - 1] + mid[x + 1] + 2) >> 2;
      const unsigned diag = (unsigned(up[x - 1]) + up[x + 1] + down[x - 1] + down[x + 1] + 2) >> 2;
      if (yp == red_y && xp == red_x) {
        px[kR] = mid[x], px[kG] = static_cast<T>(cross), px[kB] = static_cast<T>(diag);
      } else if (yp == b_y && xp == b_x) {
        px[kB] = mid[x], px[kG] = static_cast<T>(cross), px[kR] = static_cast<T>(diag);
      } else {
        // Green: one colour above and below, the other left and right.
        const T vert = static_cast<T>((unsigned(up[x]) + down[x] + 1) >> 1);
        const T horiz = static_cast<T>((unsigned(mid[x - 1]) + mid[x + 1] + 1) >> 1);
        const bool red_in_row = yp == red_y;  // red pixels share this row: red is left/right
        px[kG] = mid[x];
        px[kR] = red_in_row ? horiz : vert;
        px[kB] = red_in_row ? vert : horiz;
      }
    }
    std::memcpy(row, row + 3, 3 * sizeof(T));
    std::memcpy(row + (w - 1) * 3, row + (w - 2) * 3, 3 * sizeof(T));
  }
  std::memcpy(out, out + w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
  std::memcpy(out + (h - 1) * w * 3, out + (h - 2) * w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
}

template void DebayerBilinear<uint8_t>(const uint8_t*, uint8_t*, int64_t, int64_t, int, int);
template void DebayerBilinear<uint16_t>(const uint16_t*, uint16_t*, int64_t, int64_t, int, int);

}  // namespace sluice::kernels
