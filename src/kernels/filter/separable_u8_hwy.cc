// Highway (dynamic dispatch) uint8 separable filter: both passes vectorized along the interleaved
// row (pixel x channel elements), several vectors of accumulators kept in registers over the taps.
// Bit-identical to the generic path: the same multiplies and adds in the same order; contraction
// into FMA is switched off for this file (GCC would otherwise fuse Mul + Add on FMA targets).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/filter/separable_u8_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"
#include <hwy/cache_control.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/filter/separable_u8_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::filter_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundSaturateToU8;

// convolution.cc's StoreSat<uint8_t>.
HWY_INLINE uint8_t ScalarStore(float v) {
  if (!(v == v)) return 0;
  v = std::nearbyint(v);
  return static_cast<uint8_t>(v < 0.f ? 0.f : (v > 255.f ? 255.f : v));
}

// Horizontal pass of one row: pad (wp * C floats) -> t (W * C floats).
HWY_INLINE void RowPass(const float* HWY_RESTRICT pad, float* HWY_RESTRICT t, size_t n, size_t c,
                        const float* wx, size_t kx) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  // 8 independent accumulators: the adds of one element form a chain, so several are in flight.
  for (; i + 8 * N <= n; i += 8 * N) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    auto a4 = hn::Zero(d), a5 = hn::Zero(d), a6 = hn::Zero(d), a7 = hn::Zero(d);
    for (size_t j = 0; j < kx; ++j) {
      const auto w = hn::Set(d, wx[j]);
      const float* s = pad + i + j * c;
      a0 = hn::Add(a0, hn::Mul(w, hn::LoadU(d, s)));
      a1 = hn::Add(a1, hn::Mul(w, hn::LoadU(d, s + N)));
      a2 = hn::Add(a2, hn::Mul(w, hn::LoadU(d, s + 2 * N)));
      a3 = hn::Add(a3, hn::Mul(w, hn::LoadU(d, s + 3 * N)));
      a4 = hn::Add(a4, hn::Mul(w, hn::LoadU(d, s + 4 * N)));
      a5 = hn::Add(a5, hn::Mul(w, hn::LoadU(d, s + 5 * N)));
      a6 = hn::Add(a6, hn::Mul(w, hn::LoadU(d, s + 6 * N)));
      a7 = hn::Add(a7, hn::Mul(w, hn::LoadU(d, s + 7 * N)));
    }
    hn::StoreU(a0, d, t + i);
    hn::StoreU(a1, d, t + i + N);
    hn::StoreU(a2, d, t + i + 2 * N);
    hn::StoreU(a3, d, t + i + 3 * N);
    hn::StoreU(a4, d, t + i + 4 * N);
    hn::StoreU(a5, d, t + i + 5 * N);
    hn::StoreU(a6, d, t + i + 6 * N);
    hn::StoreU(a7, d, t + i + 7 * N);
  }
  for (; i + N <= n; i += N) {
    auto a = hn::Zero(d);
    for (size_t j = 0; j < kx; ++j) a = hn::Add(a, hn::Mul(hn::Set(d, wx[j]), hn::LoadU(d, pad + i + j * c)));
    hn::StoreU(a, d, t + i);
  }
  for (; i < n; ++i) {
    float a = 0.f;
    for (size_t j = 0; j < kx; ++j) a += wx[j] * pad[i + j * c];
    t[i] = a;
  }
}

void SeparableU8InterleavedImpl(const SeparableU8Args& a) {
  const hn::ScalableTag<float> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  const size_t C = static_cast<size_t>(a.channels), W = static_cast<size_t>(a.width);
  const size_t kx = static_cast<size_t>(a.kx), ky = static_cast<size_t>(a.ky);
  const size_t rx = kx / 2;
  // Column tiles of ~1024 elements (a multiple of 64 pixels): the ring of ky filtered tile rows
  // then stays in L1/L2 for any image width.
  const size_t tile_w = static_cast<size_t>(SeparableTileWidth(a.channels));
  auto narrow = [&](hn::Vec<decltype(d)> v) { return RoundSaturateToU8(d, d8, v); };
  const float* rows[64];
  float wts[64];
  for (size_t x0 = 0; x0 < W; x0 += tile_w) {
    const size_t tw = std::min(tile_w, W - x0), n = tw * C;
    // Padded positions [k0, k1) feed this tile; [in_lo, in_hi) of them are the image itself.
    const size_t k0 = x0, k1 = x0 + tw + kx - 1;
    const size_t in_lo = std::max(k0, rx), in_hi = std::min(k1, rx + W);
    // The horizontal result of padded row position `pos` (source row yrows[pos]) into ring slot
    // pos % ky: output row y needs positions y .. y + ky - 1, so each row is filtered once (rows
    // that the border repeats, once per repetition).
    auto fill = [&](size_t pos) {
      const int64_t sy = a.yrows[pos];
      if (sy < 0) return;
      const uint8_t* src = a.in + sy * a.in_row_stride;
      float* HWY_RESTRICT pad = a.pad;
      auto from_table = [&](size_t k) {
        const int64_t sx = a.xs[k];
        for (size_t ch = 0; ch < C; ++ch)
          pad[(k - k0) * C + ch] = sx < 0 ? 0.f : static_cast<float>(src[static_cast<size_t>(sx) * C + ch]);
      };
      for (size_t k = k0; k < in_lo; ++k) from_table(k);
      if (in_lo < in_hi) {
        const uint8_t* s = src + (in_lo - rx) * C;
        float* p = pad + (in_lo - k0) * C;
        for (size_t e = 0, ne = (in_hi - in_lo) * C; e < ne; ++e) p[e] = static_cast<float>(s[e]);
      }
      for (size_t k = std::max(in_hi, k0); k < k1; ++k) from_table(k);
      RowPass(pad, a.tmp + (pos % ky) * n, n, C, a.wx, kx);
    };
    for (int64_t y = 0; y < a.height; ++y) {
      if (y == 0) {
        for (size_t pos = 0; pos < ky; ++pos) fill(pos);
      } else {
        fill(static_cast<size_t>(y) + ky - 1);
      }
      uint8_t* dst = a.out + y * a.out_row_stride + x0 * C;
      // The taps of this row with their ring rows (rows outside the image in constant mode
      // skipped), in tap order; batches of 64 keep the order for any window.
      for (size_t r0 = 0; r0 < ky; r0 += 64) {
        size_t m = 0;
        for (size_t r = r0; r < ky && r < r0 + 64; ++r) {
          if (a.yrows[static_cast<size_t>(y) + r] < 0) continue;
          rows[m] = a.tmp + ((static_cast<size_t>(y) + r) % ky) * n;
          wts[m++] = a.wy[r];
        }
        const bool first = r0 == 0, last = r0 + 64 >= ky;
        float* HWY_RESTRICT part = a.part;  // partial sums of earlier batches (windows > 64)
        size_t i = 0;
        for (; i + 4 * N <= n; i += 4 * N) {
          auto a0 = first ? hn::Zero(d) : hn::LoadU(d, part + i), a1 = first ? hn::Zero(d) : hn::LoadU(d, part + i + N);
          auto a2 = first ? hn::Zero(d) : hn::LoadU(d, part + i + 2 * N);
          auto a3 = first ? hn::Zero(d) : hn::LoadU(d, part + i + 3 * N);
          for (size_t r = 0; r < m; ++r) {
            const auto w = hn::Set(d, wts[r]);
            a0 = hn::Add(a0, hn::Mul(w, hn::LoadU(d, rows[r] + i)));
            a1 = hn::Add(a1, hn::Mul(w, hn::LoadU(d, rows[r] + i + N)));
            a2 = hn::Add(a2, hn::Mul(w, hn::LoadU(d, rows[r] + i + 2 * N)));
            a3 = hn::Add(a3, hn::Mul(w, hn::LoadU(d, rows[r] + i + 3 * N)));
          }
          if (last) {
            hn::StoreU(narrow(a0), d8, dst + i);
            hn::StoreU(narrow(a1), d8, dst + i + N);
            hn::StoreU(narrow(a2), d8, dst + i + 2 * N);
            hn::StoreU(narrow(a3), d8, dst + i + 3 * N);
          } else {
            hn::StoreU(a0, d, part + i);
            hn::StoreU(a1, d, part + i + N);
            hn::StoreU(a2, d, part + i + 2 * N);
            hn::StoreU(a3, d, part + i + 3 * N);
          }
        }
        for (; i + N <= n; i += N) {
          auto a0 = first ? hn::Zero(d) : hn::LoadU(d, part + i);
          for (size_t r = 0; r < m; ++r) a0 = hn::Add(a0, hn::Mul(hn::Set(d, wts[r]), hn::LoadU(d, rows[r] + i)));
          if (last) hn::StoreU(narrow(a0), d8, dst + i);
          else hn::StoreU(a0, d, part + i);
        }
        for (; i < n; ++i) {
          float acc = first ? 0.f : part[i];
          for (size_t r = 0; r < m; ++r) acc += wts[r] * rows[r][i];
          if (last) dst[i] = ScalarStore(acc);
          else part[i] = acc;
        }
      }
    }
  }
}

// ---- Fixed point (separable_u8_hwy.h's SeparableU8FixedArgs) ----

// Horizontal pass of one padded row (values p << 7): t[i] = bias + sum of MulHigh terms.
HWY_INLINE void RowPassFixed(const uint16_t* HWY_RESTRICT pad, uint16_t* HWY_RESTRICT t, size_t n, size_t c,
                             const uint16_t* w, size_t k, bool sym, uint16_t bias) {
  const hn::ScalableTag<uint16_t> d;
  const size_t N = hn::Lanes(d);
  const size_t npair = sym ? k / 2 : 0, single_end = k - npair;
  const auto b = hn::Set(d, bias);
  size_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    auto a0 = b, a1 = b, a2 = b, a3 = b;
    for (size_t j = 0; j < npair; ++j) {
      const auto wv = hn::Set(d, w[j]);
      const uint16_t* s = pad + i + j * c;
      const uint16_t* e = pad + i + (k - 1 - j) * c;
      a0 = hn::Add(a0, hn::MulHigh(hn::Add(hn::LoadU(d, s), hn::LoadU(d, e)), wv));
      a1 = hn::Add(a1, hn::MulHigh(hn::Add(hn::LoadU(d, s + N), hn::LoadU(d, e + N)), wv));
      a2 = hn::Add(a2, hn::MulHigh(hn::Add(hn::LoadU(d, s + 2 * N), hn::LoadU(d, e + 2 * N)), wv));
      a3 = hn::Add(a3, hn::MulHigh(hn::Add(hn::LoadU(d, s + 3 * N), hn::LoadU(d, e + 3 * N)), wv));
    }
    for (size_t j = npair; j < single_end; ++j) {
      const auto wv = hn::Set(d, w[j]);
      const uint16_t* s = pad + i + j * c;
      a0 = hn::Add(a0, hn::MulHigh(hn::LoadU(d, s), wv));
      a1 = hn::Add(a1, hn::MulHigh(hn::LoadU(d, s + N), wv));
      a2 = hn::Add(a2, hn::MulHigh(hn::LoadU(d, s + 2 * N), wv));
      a3 = hn::Add(a3, hn::MulHigh(hn::LoadU(d, s + 3 * N), wv));
    }
    hn::StoreU(a0, d, t + i);
    hn::StoreU(a1, d, t + i + N);
    hn::StoreU(a2, d, t + i + 2 * N);
    hn::StoreU(a3, d, t + i + 3 * N);
  }
  for (; i + N <= n; i += N) {
    auto a0 = b;
    for (size_t j = 0; j < npair; ++j)
      a0 = hn::Add(a0, hn::MulHigh(hn::Add(hn::LoadU(d, pad + i + j * c), hn::LoadU(d, pad + i + (k - 1 - j) * c)),
                                   hn::Set(d, w[j])));
    for (size_t j = npair; j < single_end; ++j) a0 = hn::Add(a0, hn::MulHigh(hn::LoadU(d, pad + i + j * c), hn::Set(d, w[j])));
    hn::StoreU(a0, d, t + i);
  }
  for (; i < n; ++i) {  // the same integer arithmetic, one element
    uint32_t acc = bias;
    for (size_t j = 0; j < npair; ++j)
      acc += (static_cast<uint32_t>(static_cast<uint16_t>(pad[i + j * c] + pad[i + (k - 1 - j) * c])) * w[j]) >> 16;
    for (size_t j = npair; j < single_end; ++j) acc += (static_cast<uint32_t>(pad[i + j * c]) * w[j]) >> 16;
    t[i] = static_cast<uint16_t>(acc);
  }
}

void SeparableU8FixedInterleavedImpl(const SeparableU8FixedArgs& a) {
  const hn::ScalableTag<uint16_t> d;
  const hn::Rebind<int16_t, decltype(d)> di;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const size_t N = hn::Lanes(d);
  const size_t C = static_cast<size_t>(a.channels), W = static_cast<size_t>(a.width);
  const size_t kx = static_cast<size_t>(a.kx), ky = static_cast<size_t>(a.ky);
  const size_t rx = kx / 2;
  const size_t tile_w = static_cast<size_t>(a.tile_w);
  const size_t npair_y = a.sym_y ? ky / 2 : 0, single_end_y = ky - npair_y;
  const auto vb = hn::Set(d, static_cast<uint16_t>(a.bias_y + 64));
  auto narrow = [&](hn::Vec<decltype(d)> v) { return hn::DemoteTo(d8, hn::BitCast(di, hn::ShiftRight<7>(v))); };
  const uint16_t* ra[kMaxFixedTaps];
  const uint16_t* rb[kMaxFixedTaps];
  uint16_t wts[kMaxFixedTaps];
  for (size_t x0 = 0; x0 < W; x0 += tile_w) {
    const size_t tw = std::min(tile_w, W - x0), n = tw * C;
    const size_t k0 = x0, k1 = x0 + tw + kx - 1;
    const size_t in_lo = std::max(k0, rx), in_hi = std::min(k1, rx + W);
    auto fill = [&](size_t pos) {
      const int64_t sy = a.yrows[pos];
      if (sy < 0) return;
      const uint8_t* src = a.in + sy * a.in_row_stride;
      uint16_t* HWY_RESTRICT pad = a.pad;
      auto from_table = [&](size_t k) {
        const int64_t sx = a.xs[k];
        for (size_t ch = 0; ch < C; ++ch)
          pad[(k - k0) * C + ch] =
              sx < 0 ? uint16_t{0} : static_cast<uint16_t>(src[static_cast<size_t>(sx) * C + ch] << 7);
      };
      for (size_t k = k0; k < in_lo; ++k) from_table(k);
      if (in_lo < in_hi) {
        const uint8_t* s = src + (in_lo - rx) * C;
        uint16_t* p = pad + (in_lo - k0) * C;
        // The next source row's part of this tile, ahead of time: a tile's rows are a page or more
        // apart, beyond what the hardware prefetchers follow.
        if (pos + 1 < static_cast<size_t>(a.height) + ky - 1 && a.yrows[pos + 1] >= 0) {
          const uint8_t* next = a.in + a.yrows[pos + 1] * a.in_row_stride + (in_lo - rx) * C;
          for (size_t e = 0, ne = (in_hi - in_lo) * C; e < ne; e += 64) hwy::Prefetch(next + e);
        }
        const size_t ne = (in_hi - in_lo) * C;
        size_t e = 0;
        for (; e + N <= ne; e += N) hn::StoreU(hn::ShiftLeft<7>(hn::PromoteTo(d, hn::LoadU(d8, s + e))), d, p + e);
        for (; e < ne; ++e) p[e] = static_cast<uint16_t>(s[e] << 7);
      }
      for (size_t k = std::max(in_hi, k0); k < k1; ++k) from_table(k);
      RowPassFixed(pad, a.ring + (pos % ky) * n, n, C, a.wx, kx, a.sym_x, a.bias_x);
    };
    auto row_of = [&](size_t y, size_t r) -> const uint16_t* {
      return a.yrows[y + r] < 0 ? a.zero : a.ring + ((y + r) % ky) * n;
    };
    for (int64_t yy = 0; yy < a.height; ++yy) {
      const auto y = static_cast<size_t>(yy);
      if (y == 0) {
        for (size_t pos = 0; pos < ky; ++pos) fill(pos);
      } else {
        fill(y + ky - 1);
      }
      uint8_t* dst = a.out + yy * a.out_row_stride + x0 * C;
      for (size_t r = 0; r < npair_y; ++r) {
        ra[r] = row_of(y, r);
        rb[r] = row_of(y, ky - 1 - r);
        wts[r] = a.wy[r];
      }
      for (size_t r = npair_y; r < single_end_y; ++r) {
        ra[r] = row_of(y, r);
        wts[r] = a.wy[r];
      }
      size_t i = 0;
      for (; i + 4 * N <= n; i += 4 * N) {
        auto a0 = vb, a1 = vb, a2 = vb, a3 = vb;
        for (size_t r = 0; r < npair_y; ++r) {
          const auto wv = hn::Set(d, wts[r]);
          const uint16_t* p = ra[r] + i;
          const uint16_t* q = rb[r] + i;
          a0 = hn::Add(a0, hn::MulHigh(hn::Add(hn::LoadU(d, p), hn::LoadU(d, q)), wv));
          a1 = hn::Add(a1, hn::MulHigh(hn::Add(hn::LoadU(d, p + N), hn::LoadU(d, q + N)), wv));
          a2 = hn::Add(a2, hn::MulHigh(hn::Add(hn::LoadU(d, p + 2 * N), hn::LoadU(d, q + 2 * N)), wv));
          a3 = hn::Add(a3, hn::MulHigh(hn::Add(hn::LoadU(d, p + 3 * N), hn::LoadU(d, q + 3 * N)), wv));
        }
        for (size_t r = npair_y; r < single_end_y; ++r) {
          const auto wv = hn::Set(d, wts[r]);
          const uint16_t* p = ra[r] + i;
          a0 = hn::Add(a0, hn::MulHigh(hn::LoadU(d, p), wv));
          a1 = hn::Add(a1, hn::MulHigh(hn::LoadU(d, p + N), wv));
          a2 = hn::Add(a2, hn::MulHigh(hn::LoadU(d, p + 2 * N), wv));
          a3 = hn::Add(a3, hn::MulHigh(hn::LoadU(d, p + 3 * N), wv));
        }
        hn::StoreU(narrow(a0), d8, dst + i);
        hn::StoreU(narrow(a1), d8, dst + i + N);
        hn::StoreU(narrow(a2), d8, dst + i + 2 * N);
        hn::StoreU(narrow(a3), d8, dst + i + 3 * N);
      }
      for (; i + N <= n; i += N) {
        auto a0 = vb;
        for (size_t r = 0; r < npair_y; ++r)
          a0 = hn::Add(a0, hn::MulHigh(hn::Add(hn::LoadU(d, ra[r] + i), hn::LoadU(d, rb[r] + i)), hn::Set(d, wts[r])));
        for (size_t r = npair_y; r < single_end_y; ++r)
          a0 = hn::Add(a0, hn::MulHigh(hn::LoadU(d, ra[r] + i), hn::Set(d, wts[r])));
        hn::StoreU(narrow(a0), d8, dst + i);
      }
      for (; i < n; ++i) {  // the same integer arithmetic, one element
        uint32_t acc = static_cast<uint16_t>(a.bias_y + 64);
        for (size_t r = 0; r < npair_y; ++r)
          acc += (static_cast<uint32_t>(static_cast<uint16_t>(ra[r][i] + rb[r][i])) * wts[r]) >> 16;
        for (size_t r = npair_y; r < single_end_y; ++r) acc += (static_cast<uint32_t>(ra[r][i]) * wts[r]) >> 16;
        const uint32_t v = (acc & 0xFFFF) >> 7;
        dst[i] = static_cast<uint8_t>(v > 255 ? 255 : v);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::filter_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::filter_detail {
HWY_EXPORT(SeparableU8InterleavedImpl);
HWY_EXPORT(SeparableU8FixedInterleavedImpl);
void SeparableU8Interleaved(const SeparableU8Args& a) { HWY_DYNAMIC_DISPATCH(SeparableU8InterleavedImpl)(a); }
void SeparableU8FixedInterleaved(const SeparableU8FixedArgs& a) {
  HWY_DYNAMIC_DISPATCH(SeparableU8FixedInterleavedImpl)(a);
}
}  // namespace sluice::kernels::filter_detail
#endif
