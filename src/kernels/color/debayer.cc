#include "kernels/color/debayer.h"

#include <type_traits>

#include "kernels/color/debayer_rows_hwy.h"

#include <algorithm>
#include <cstring>

namespace sluice::kernels {

template <typename T>
void DebayerBilinear(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x) {
  if (h < 3 || w < 3) {
    std::fill(out, out + h * w * 3, T{0});
    return;
  }
  const int red_y = blue_y & 1, red_x = blue_x & 1, b_x = (1 + blue_x) & 1;
  for (int64_t y = 1; y < h - 1; ++y) {
    const T* up = in + (y - 1) * w;
    const T* mid = in + y * w;
    const T* down = in + (y + 1) * w;
    T* row = out + y * w * 3;
    // This row's red-or-blue pixels: their colour goes to channel `own`, the diagonal one to
    // `other`; at green pixels `own` comes from the left/right pair, `other` from up/down.
    const bool red_row = (y & 1) == red_y;
    const int own = red_row ? 0 : 2, other = 2 - own;
    const int64_t first_colour = red_row ? red_x : b_x;  // the parity of this row's red-or-blue columns
    auto colour = [&](int64_t x) {
      T* px = row + x * 3;
      px[own] = mid[x];
      px[1] = static_cast<T>((unsigned(up[x]) + down[x] + mid[x - 1] + mid[x + 1] + 2) >> 2);
      px[other] = static_cast<T>((unsigned(up[x - 1]) + up[x + 1] + down[x - 1] + down[x + 1] + 2) >> 2);
    };
    auto green = [&](int64_t x) {
      T* px = row + x * 3;
      px[own] = static_cast<T>((unsigned(mid[x - 1]) + mid[x + 1] + 1) >> 1);
      px[1] = mid[x];
      px[other] = static_cast<T>((unsigned(up[x]) + down[x] + 1) >> 1);
    };
    int64_t x = 1;
    if ((x & 1) != first_colour) green(x++);
    if constexpr (std::is_same_v<T, uint8_t>)
      x += 2 * debayer_detail::DebayerPairsU8(up, mid, down, row, x, (w - 1 - x) / 2, own, /*edge_aware=*/false);
    for (; x + 1 < w - 1; x += 2) {  // pairs: red-or-blue, then green
      colour(x);
      green(x + 1);
    }
    if (x < w - 1) colour(x);
    std::memcpy(row, row + 3, 3 * sizeof(T));
    std::memcpy(row + (w - 1) * 3, row + (w - 2) * 3, 3 * sizeof(T));
  }
  std::memcpy(out, out + w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
  std::memcpy(out + (h - 1) * w * 3, out + (h - 2) * w * 3, static_cast<size_t>(w) * 3 * sizeof(T));
}

template void DebayerBilinear<uint8_t>(const uint8_t*, uint8_t*, int64_t, int64_t, int, int);
template void DebayerBilinear<uint16_t>(const uint16_t*, uint16_t*, int64_t, int64_t, int, int);

}  // namespace sluice::kernels
