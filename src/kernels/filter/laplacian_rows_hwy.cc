// Highway (dynamic dispatch) rows of Laplacian2D: the two horizontal passes share their loads and
// the pair sums of the padded row (both windows are centred on the same column); the vertical pass
// keeps both partial derivatives' sums in registers and converts to uint8 in SIMD. Contraction into FMA is off for this file: the sums must equal the scalar tail's.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/filter/laplacian_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include <cmath>

#include "kernels/filter/laplacian_rows_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::filter_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::StoreFloatOrU8;

void LaplacianRowPassImpl(const float* c, int64_t n, int64_t step, int r, const float* ws, const float* wd,
                          float* hs, float* hd) {
  const hn::ScalableTag<float> df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  int64_t e = 0;
  for (; e + 2 * N <= n; e += 2 * N) {
    const auto c0 = hn::LoadU(df, c + e), c1 = hn::LoadU(df, c + e + N);
    auto s0 = hn::Mul(hn::Set(df, ws[0]), c0), s1 = hn::Mul(hn::Set(df, ws[0]), c1);
    auto d0 = hn::Mul(hn::Set(df, wd[0]), c0), d1 = hn::Mul(hn::Set(df, wd[0]), c1);
    for (int d = 1; d <= r; ++d) {
      const float* lo = c + e - d * step;
      const float* hi = c + e + d * step;
      const auto p0 = hn::Add(hn::LoadU(df, lo), hn::LoadU(df, hi));
      const auto p1 = hn::Add(hn::LoadU(df, lo + N), hn::LoadU(df, hi + N));
      if (ws[d] != 0.f) {
        const auto f = hn::Set(df, ws[d]);
        s0 = hn::Add(s0, hn::Mul(f, p0));
        s1 = hn::Add(s1, hn::Mul(f, p1));
      }
      if (wd[d] != 0.f) {
        const auto f = hn::Set(df, wd[d]);
        d0 = hn::Add(d0, hn::Mul(f, p0));
        d1 = hn::Add(d1, hn::Mul(f, p1));
      }
    }
    hn::StoreU(s0, df, hs + e);
    hn::StoreU(s1, df, hs + e + N);
    hn::StoreU(d0, df, hd + e);
    hn::StoreU(d1, df, hd + e + N);
  }
  for (; e < n; ++e) {
    float s = ws[0] * c[e], dv = wd[0] * c[e];
    for (int d = 1; d <= r; ++d) {
      const float pr = c[e - d * step] + c[e + d * step];
      if (ws[d] != 0.f) s += ws[d] * pr;
      if (wd[d] != 0.f) dv += wd[d] * pr;
    }
    hs[e] = s;
    hd[e] = dv;
  }
}

void LaplacianColumnPassImpl(const float* const* ra, const float* a, const float* const* rb, const float* b, int r,
                             int64_t n, float* acc, uint8_t* out8) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  auto put = [&](hn::Vec<decltype(df)> v, int64_t at) { StoreFloatOrU8(df, d8, v, acc, out8, at); };
  int64_t e = 0;
  for (; e + 2 * N <= n; e += 2 * N) {
    auto x0 = hn::Mul(hn::Set(df, a[0]), hn::LoadU(df, ra[r] + e));
    auto x1 = hn::Mul(hn::Set(df, a[0]), hn::LoadU(df, ra[r] + e + N));
    auto y0 = hn::Mul(hn::Set(df, b[0]), hn::LoadU(df, rb[r] + e));
    auto y1 = hn::Mul(hn::Set(df, b[0]), hn::LoadU(df, rb[r] + e + N));
    for (int d = 1; d <= r; ++d) {
      if (a[d] != 0.f) {
        const auto f = hn::Set(df, a[d]);
        x0 = hn::Add(x0, hn::Mul(f, hn::Add(hn::LoadU(df, ra[r - d] + e), hn::LoadU(df, ra[r + d] + e))));
        x1 = hn::Add(x1, hn::Mul(f, hn::Add(hn::LoadU(df, ra[r - d] + e + N), hn::LoadU(df, ra[r + d] + e + N))));
      }
      if (b[d] != 0.f) {
        const auto f = hn::Set(df, b[d]);
        y0 = hn::Add(y0, hn::Mul(f, hn::Add(hn::LoadU(df, rb[r - d] + e), hn::LoadU(df, rb[r + d] + e))));
        y1 = hn::Add(y1, hn::Mul(f, hn::Add(hn::LoadU(df, rb[r - d] + e + N), hn::LoadU(df, rb[r + d] + e + N))));
      }
    }
    put(hn::Add(x0, y0), e);
    put(hn::Add(x1, y1), e + N);
  }
  for (; e < n; ++e) {
    float x = a[0] * ra[r][e], y = b[0] * rb[r][e];
    for (int d = 1; d <= r; ++d) {
      if (a[d] != 0.f) x += a[d] * (ra[r - d][e] + ra[r + d][e]);
      if (b[d] != 0.f) y += b[d] * (rb[r - d][e] + rb[r + d][e]);
    }
    float v = x + y;
    if (out8) {
      v = v == v ? v : 0.f;
      v = v > -1.f ? v : -1.f;
      v = v < 256.f ? v : 256.f;
      const float q = std::nearbyint(v);
      out8[e] = static_cast<uint8_t>(q < 0.f ? 0 : q > 255.f ? 255 : static_cast<int>(q));
    } else {
      acc[e] = v;
    }
  }
}

void LaplacianRowPassI16Impl(const int16_t* c, int64_t n, int64_t step, int r, const int16_t* ws, const int16_t* wd,
                             int16_t* hs, int16_t* hd) {
  const hn::ScalableTag<int16_t> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  int64_t e = 0;
  for (; e + N <= n; e += N) {
    const auto c0 = hn::LoadU(d, c + e);
    auto s0 = hn::Mul(hn::Set(d, ws[0]), c0), d0 = hn::Mul(hn::Set(d, wd[0]), c0);
    for (int k = 1; k <= r; ++k) {
      const auto p0 = hn::Add(hn::LoadU(d, c + e - k * step), hn::LoadU(d, c + e + k * step));
      if (ws[k] != 0) s0 = hn::Add(s0, hn::Mul(hn::Set(d, ws[k]), p0));
      if (wd[k] != 0) d0 = hn::Add(d0, hn::Mul(hn::Set(d, wd[k]), p0));
    }
    hn::StoreU(s0, d, hs + e);
    hn::StoreU(d0, d, hd + e);
  }
  for (; e < n; ++e) {
    int s0 = ws[0] * c[e], d0 = wd[0] * c[e];
    for (int k = 1; k <= r; ++k) {
      const int pr = c[e - k * step] + c[e + k * step];
      s0 += ws[k] * pr;
      d0 += wd[k] * pr;
    }
    hs[e] = static_cast<int16_t>(s0);
    hd[e] = static_cast<int16_t>(d0);
  }
}

void LaplacianColumnPassI16Impl(const int16_t* const* ra, const int16_t* a, const int16_t* const* rb, const int16_t* b,
                                int r, int64_t n, int16_t* out16, uint8_t* out8) {
  const hn::ScalableTag<int16_t> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  int64_t e = 0;
  for (; e + N <= n; e += N) {
    auto x = hn::Mul(hn::Set(d, a[0]), hn::LoadU(d, ra[r] + e));
    auto y = hn::Mul(hn::Set(d, b[0]), hn::LoadU(d, rb[r] + e));
    for (int k = 1; k <= r; ++k) {
      if (a[k] != 0) x = hn::Add(x, hn::Mul(hn::Set(d, a[k]), hn::Add(hn::LoadU(d, ra[r - k] + e), hn::LoadU(d, ra[r + k] + e))));
      if (b[k] != 0) y = hn::Add(y, hn::Mul(hn::Set(d, b[k]), hn::Add(hn::LoadU(d, rb[r - k] + e), hn::LoadU(d, rb[r + k] + e))));
    }
    const auto v = hn::Add(x, y);
    if (out8)
      hn::StoreU(hn::DemoteTo(d8, v), d8, out8 + e);
    else
      hn::StoreU(v, d, out16 + e);
  }
  for (; e < n; ++e) {
    int x = a[0] * ra[r][e], y = b[0] * rb[r][e];
    for (int k = 1; k <= r; ++k) {
      x += a[k] * (ra[r - k][e] + ra[r + k][e]);
      y += b[k] * (rb[r - k][e] + rb[r + k][e]);
    }
    const int v = x + y;
    if (out8)
      out8[e] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
    else
      out16[e] = static_cast<int16_t>(v);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::filter_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::filter_detail {
HWY_EXPORT(LaplacianRowPassImpl);
HWY_EXPORT(LaplacianColumnPassImpl);
HWY_EXPORT(LaplacianRowPassI16Impl);
HWY_EXPORT(LaplacianColumnPassI16Impl);
void LaplacianRowPassI16(const int16_t* c, int64_t n, int64_t step, int r, const int16_t* ws, const int16_t* wd,
                         int16_t* hs, int16_t* hd) {
  HWY_DYNAMIC_DISPATCH(LaplacianRowPassI16Impl)(c, n, step, r, ws, wd, hs, hd);
}
void LaplacianColumnPassI16(const int16_t* const* ra, const int16_t* a, const int16_t* const* rb, const int16_t* b,
                            int r, int64_t n, int16_t* out16, uint8_t* out8) {
  HWY_DYNAMIC_DISPATCH(LaplacianColumnPassI16Impl)(ra, a, rb, b, r, n, out16, out8);
}
void LaplacianRowPass(const float* c, int64_t n, int64_t step, int r, const float* ws, const float* wd, float* hs,
                      float* hd) {
  HWY_DYNAMIC_DISPATCH(LaplacianRowPassImpl)(c, n, step, r, ws, wd, hs, hd);
}
void LaplacianColumnPass(const float* const* ra, const float* a, const float* const* rb, const float* b, int r,
                         int64_t n, float* acc, uint8_t* out8) {
  HWY_DYNAMIC_DISPATCH(LaplacianColumnPassImpl)(ra, a, rb, b, r, n, acc, out8);
}
}  // namespace sluice::kernels::filter_detail
#endif
