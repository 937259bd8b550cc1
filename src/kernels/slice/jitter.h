// DALI's jitter (a displacement filter, dali/operators/image/remap/jitter.h): every output pixel
// (y, x) of an HWC image takes the input pixel (y', x') with
//     x' = clamp(x + r_x % n_degree - n_degree / 2, 0, W),  y' likewise with r_y and H,
// r_x then r_y being two fresh 64-bit random numbers per pixel (one displacement for all
// channels, rows top to bottom, pixels left to right); x' == W or y' == H (only reachable when
// the displacement is positive) gives `fill`. So each pixel moves by an integer in
// [-n_degree / 2, n_degree - 1 - n_degree / 2] on each axis.
//
// Randomness comes from the caller (`next` returns uniformly distributed uint64_t), so the
// engine's per-sample stream makes it deterministic for any thread count. Reentrant; no allocation.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sluice::kernels {

template <typename T, typename Next>
void Jitter(const T* in, T* out, int64_t h, int64_t w, int64_t c, int n_degree, T fill, Next&& next) {
  const int64_t deg = std::max(n_degree, 1), half = deg / 2;
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      const int64_t dx = static_cast<int64_t>(static_cast<uint64_t>(next()) % static_cast<uint64_t>(deg)) - half;
      const int64_t dy = static_cast<int64_t>(static_cast<uint64_t>(next()) % static_cast<uint64_t>(deg)) - half;
      const int64_t sx = std::clamp<int64_t>(x + dx, 0, w), sy = std::clamp<int64_t>(y + dy, 0, h);
      T* o = out + (y * w + x) * c;
      if (sx == w || sy == h) {
        std::fill_n(o, c, fill);
      } else {
        const T* p = in + (sy * w + sx) * c;
        std::copy(p, p + c, o);
      }
    }
  }
}

}  // namespace sluice::kernels
