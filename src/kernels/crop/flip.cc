#include "kernels/crop/flip.h"

#include <cstring>

#include "kernels/crop/flip_rows_hwy.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Reverses the pixel order of one row: the vector path (flip_rows_hwy.h) for the leading output
// pixels, then one pixel at a time; P > 0 is a compile-time pixel size for the common cases.
template <size_t P>
void ReverseRow(const uint8_t* src, uint8_t* dst, int64_t w, size_t px) {
  const size_t p = P ? P : px;
  const int64_t done = int64_t(flip_detail::ReverseRowVec(src, dst, size_t(w), p));
  // Indexed, not a walking pointer: one stepping below src after the last pixel is undefined.
  for (int64_t x = done; x < w; ++x) std::memcpy(dst + size_t(x) * p, src + size_t(w - 1 - x) * p, p);
}

void CopyRow(const uint8_t* s, uint8_t* d, int64_t w, size_t px, bool horizontal) {
  if (!horizontal) {
    std::memcpy(d, s, size_t(w) * px);
    return;
  }
  switch (px) {
    case 1: ReverseRow<1>(s, d, w, px); break;
    case 2: ReverseRow<2>(s, d, w, px); break;
    case 3: ReverseRow<3>(s, d, w, px); break;
    case 4: ReverseRow<4>(s, d, w, px); break;
    case 8: ReverseRow<8>(s, d, w, px); break;
    case 12: ReverseRow<12>(s, d, w, px); break;
    case 16: ReverseRow<16>(s, d, w, px); break;
    default: ReverseRow<0>(s, d, w, px); break;
  }
}

}  // namespace

void FlipVolume(const void* in, void* out, const FlipGeometry& g, size_t elem_size, bool horizontal, bool vertical,
                bool depthwise) {
  if (g.outer < 0 || g.depth < 0 || g.height < 0 || g.width < 0 || g.inner < 0 || elem_size == 0)
    throw Error("flip: invalid shape");
  const size_t px = size_t(g.inner) * elem_size, row = px * size_t(g.width), plane = row * size_t(g.height);
  const size_t block = plane * size_t(g.depth);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  for (int64_t o = 0; o < g.outer; ++o) {
    for (int64_t z = 0; z < g.depth; ++z) {
      const uint8_t* sp = src + size_t(o) * block + size_t(depthwise ? g.depth - 1 - z : z) * plane;
      uint8_t* dp = dst + size_t(o) * block + size_t(z) * plane;
      for (int64_t y = 0; y < g.height; ++y)
        CopyRow(sp + size_t(vertical ? g.height - 1 - y : y) * row, dp + size_t(y) * row, g.width, px, horizontal);
    }
  }
}

void Flip(const void* in, void* out, int64_t h, int64_t w, int64_t c, size_t elem_size, bool horizontal,
          bool vertical) {
  FlipVolume(in, out, FlipGeometry{1, 1, h, w, c}, elem_size, horizontal, vertical, false);
}

}  // namespace sluice::kernels
