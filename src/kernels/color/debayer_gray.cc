// DebayerGray: OpenCV 5's Bayer-to-gray conversion (kernels/color/debayer.h has the contract): its
// fixed-point formulas, uint8 rows in Highway steps with the same exact arithmetic.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "kernels/color/debayer.h"
#include "kernels/color/debayer_rows_hwy.h"

namespace sluice::kernels {
namespace {

constexpr uint32_t kR2Y = 4899, kG2Y = 9617, kB2Y = 1868;

// Three mosaic rows around an output row, indexed from the column left of the output pixel.
template <typename T>
struct Rows {
  const T* up;
  const T* mid;
  const T* down;
};

// Scalar: a red or blue pixel whose top-left neighbour is column p; `rc` weighs the corners'
// colour, `bc` the pixel's own.
template <typename T>
T CornerPixel(const Rows<T>& r, int64_t p, uint32_t rc, uint32_t bc) {
  const uint32_t t0 = (uint32_t(r.up[p]) + r.up[p + 2] + r.down[p] + r.down[p + 2]) * rc;
  const uint32_t t1 = (uint32_t(r.up[p + 1]) + r.mid[p] + r.mid[p + 2] + r.down[p + 1]) * kG2Y;
  const uint32_t t2 = uint32_t(r.mid[p + 1]) * (4 * bc);
  return static_cast<T>((t0 + t1 + t2 + (1u << 15)) >> 16);
}

// Scalar: a green pixel whose top-left neighbour is column p (`rc` weighs the vertical pair).
template <typename T>
T GreenPixel(const Rows<T>& r, int64_t p, uint32_t rc, uint32_t bc) {
  const uint32_t t0 = (uint32_t(r.up[p + 1]) + r.down[p + 1]) * rc;
  const uint32_t t1 = (uint32_t(r.mid[p]) + r.mid[p + 2]) * bc;
  const uint32_t t2 = uint32_t(r.mid[p + 1]) * (2 * kG2Y);
  return static_cast<T>((t0 + t1 + t2 + (1u << 14)) >> 15);
}

}  // namespace

template <typename T>
void DebayerGray(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x) {
  if (h <= 2) {
    std::fill(out, out + h * w, T{0});
    return;
  }
  // OpenCV's pattern names: (0,0) BG, (0,1) GB, (1,0) GR, (1,1) RG. Rows starting with blue
  // (BG, GB) weigh the corners as red and the centre as blue; the others the reverse.
  int green_first = (blue_y ^ blue_x) & 1;
  uint32_t bc = kB2Y, rc = kR2Y;
  if (blue_y & 1) std::swap(bc, rc);
  const int64_t inner = w - 2;  // output columns 1 .. w - 2
  for (int64_t y = 1; y < h - 1; ++y) {
    T* row = out + y * w;
    if (inner <= 0) {
      std::fill(row, row + w, T{0});
    } else {
      const Rows<T> r{in + (y - 1) * w, in + y * w, in + (y + 1) * w};
      int64_t p = 0;  // top-left column of the next output pixel (which is at column p + 1)
      if (green_first) {
        row[1] = GreenPixel(r, 0, rc, bc);
        p = 1;
      }
      if constexpr (std::is_same_v<T, uint8_t>) {
        // Steps of 14 pixels while 18 columns remain (OpenCV's SIMD loop; each step reads 16 columns
        // and its 2 spare output bytes are rewritten by the next step or the loop below).
        const int64_t steps = inner >= 18 ? (inner - 18) / 14 + 1 : 0;
        if (debayer_detail::DebayerGraySteps(r.up + p, r.mid + p, r.down + p, row + p + 1, steps, rc, kG2Y, bc))
          p += steps * 14;
      }
      for (; p <= inner - 2; p += 2) {
        row[p + 1] = CornerPixel(r, p, rc, bc);
        row[p + 2] = GreenPixel(r, p + 1, rc, bc);
      }
      if (p < inner) row[p + 1] = CornerPixel(r, p, rc, bc);
      row[0] = row[1];
      row[w - 1] = row[w - 2];
    }
    std::swap(bc, rc);
    green_first ^= 1;
  }
  std::memcpy(out, out + w, static_cast<size_t>(w) * sizeof(T));
  std::memcpy(out + (h - 1) * w, out + (h - 2) * w, static_cast<size_t>(w) * sizeof(T));
}

template void DebayerGray<uint8_t>(const uint8_t*, uint8_t*, int64_t, int64_t, int, int);
template void DebayerGray<uint16_t>(const uint16_t*, uint16_t*, int64_t, int64_t, int, int);

}  // namespace sluice::kernels
