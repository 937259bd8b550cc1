#include "kernels/crop/crop.h"

#include <algorithm>
#include <cstring>

#include "sluice/error.h"

namespace sluice::kernels {

void Crop(const void* in, int64_t H, int64_t W, int64_t C, size_t es, int64_t x, int64_t y, int64_t w, int64_t h,
          void* out, const void* fill_pixel) {
  if (H < 0 || W < 0 || C <= 0 || w < 0 || h < 0 || es == 0) throw Error("crop: invalid shape");
  const size_t px = size_t(C) * es, out_row = size_t(w) * px, in_row = size_t(W) * px;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  const auto* fill = static_cast<const uint8_t*>(fill_pixel);
  auto fill_px = [&](uint8_t* d, int64_t n) {
    if (n <= 0) return;
    if (!fill) { std::memset(d, 0, size_t(n) * px); return; }
    for (int64_t i = 0; i < n; ++i) std::memcpy(d + size_t(i) * px, fill, px);
  };
  const int64_t xa = std::clamp<int64_t>(-x, 0, w), xb = std::clamp<int64_t>(W - x, xa, w);
  for (int64_t r = 0; r < h; ++r) {
    uint8_t* d = dst + size_t(r) * out_row;
    const int64_t sy = y + r;
    if (sy < 0 || sy >= H) { fill_px(d, w); continue; }
    fill_px(d, xa);
    if (xb > xa) std::memcpy(d + size_t(xa) * px, src + size_t(sy) * in_row + size_t(x + xa) * px, size_t(xb - xa) * px);
    fill_px(d + size_t(xb) * px, w - xb);
  }
}

void CropVolume(const void* in, int64_t D, int64_t H, int64_t W, int64_t C, size_t es, int64_t z, int64_t d, int64_t x,
                int64_t y, int64_t w, int64_t h, void* out, const void* fill_pixel) {
  if (D < 0 || d < 0) throw Error("crop: invalid shape");
  const size_t in_slice = size_t(H) * size_t(W) * size_t(C) * es, out_slice = size_t(h) * size_t(w) * size_t(C) * es;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  for (int64_t k = 0; k < d; ++k) {
    const int64_t sz = z + k;
    // A slice outside the volume: the window of a 0 x 0 image is all fill.
    if (sz < 0 || sz >= D) Crop(src, 0, 0, C, es, 0, 0, w, h, dst + size_t(k) * out_slice, fill_pixel);
    else Crop(src + size_t(sz) * in_slice, H, W, C, es, x, y, w, h, dst + size_t(k) * out_slice, fill_pixel);
  }
}

}  // namespace sluice::kernels
