#include "kernels/crop/flip.h"

#include <cstring>

#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Reverses the pixel order of one row; P > 0 is a compile-time pixel size for the common cases.
template <size_t P>
void ReverseRow(const uint8_t* src, uint8_t* dst, int64_t w, size_t px) {
  const size_t p = P ? P : px;
  const uint8_t* s = src + size_t(w - 1) * p;
  for (int64_t x = 0; x < w; ++x, s -= p, dst += p) std::memcpy(dst, s, p);
}

}  // namespace

void Flip(const void* in, void* out, int64_t h, int64_t w, int64_t c, size_t elem_size, bool horizontal,
          bool vertical) {
  if (h < 0 || w < 0 || c < 0 || elem_size == 0) throw Error("flip: invalid shape");
  const size_t px = size_t(c) * elem_size, row = px * size_t(w);
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* s = src + size_t(vertical ? h - 1 - y : y) * row;
    uint8_t* d = dst + size_t(y) * row;
    if (!horizontal) {
      std::memcpy(d, s, row);
      continue;
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
}

}  // namespace sluice::kernels
