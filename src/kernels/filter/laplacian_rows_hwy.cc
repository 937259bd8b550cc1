// Highway (dynamic dispatch) rows of Laplacian2D: the two horizontal passes share their loads of
// the padded row; the vertical pass keeps both partial derivatives' sums in registers and converts
// to uint8 in SIMD. Contraction into FMA is off for this file: the sums must equal the scalar tail's.
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

#include <cmath>

#include "kernels/filter/laplacian_rows_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::filter_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void LaplacianRowPassImpl(const float* p, int64_t n, int64_t step, const float* ws, int ks, int off_s,
                          const float* wd, int kd, int off_d, float* hs, float* hd) {
  const hn::ScalableTag<float> df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  int64_t e = 0;
  for (; e + 2 * N <= n; e += 2 * N) {
    auto s0 = hn::Zero(df), s1 = s0, d0 = s0, d1 = s0;
    for (int j = 0; j < ks; ++j) {
      const float* r = p + e + (off_s + j) * step;
      const auto f = hn::Set(df, ws[j]);
      s0 = hn::Add(s0, hn::Mul(f, hn::LoadU(df, r)));
      s1 = hn::Add(s1, hn::Mul(f, hn::LoadU(df, r + N)));
    }
    for (int j = 0; j < kd; ++j) {
      const float* r = p + e + (off_d + j) * step;
      const auto f = hn::Set(df, wd[j]);
      d0 = hn::Add(d0, hn::Mul(f, hn::LoadU(df, r)));
      d1 = hn::Add(d1, hn::Mul(f, hn::LoadU(df, r + N)));
    }
    hn::StoreU(s0, df, hs + e);
    hn::StoreU(s1, df, hs + e + N);
    hn::StoreU(d0, df, hd + e);
    hn::StoreU(d1, df, hd + e + N);
  }
  for (; e < n; ++e) {
    float s = 0.f, d = 0.f;
    for (int j = 0; j < ks; ++j) s += ws[j] * p[e + (off_s + j) * step];
    for (int j = 0; j < kd; ++j) d += wd[j] * p[e + (off_d + j) * step];
    hs[e] = s;
    hd[e] = d;
  }
}

void LaplacianColumnPassImpl(const float* const* ra, const float* a, int ka, const float* const* rb, const float* b,
                             int kb, int64_t n, float* acc, uint8_t* out8) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto lo = hn::Set(df, -1.0f), hi = hn::Set(df, 256.0f);
  auto put = [&](hn::Vec<decltype(df)> v, int64_t at) {
    if (out8) {
      v = hn::IfThenElseZero(hn::Eq(v, v), v);
      hn::StoreU(hn::DemoteTo(d8, hn::NearestInt(hn::Min(hn::Max(v, lo), hi))), d8, out8 + at);
    } else {
      hn::StoreU(v, df, acc + at);
    }
  };
  int64_t e = 0;
  for (; e + 2 * N <= n; e += 2 * N) {
    auto x0 = hn::Zero(df), x1 = x0, y0 = x0, y1 = x0;
    for (int i = 0; i < ka; ++i) {
      const auto f = hn::Set(df, a[i]);
      x0 = hn::Add(x0, hn::Mul(f, hn::LoadU(df, ra[i] + e)));
      x1 = hn::Add(x1, hn::Mul(f, hn::LoadU(df, ra[i] + e + N)));
    }
    for (int i = 0; i < kb; ++i) {
      const auto f = hn::Set(df, b[i]);
      y0 = hn::Add(y0, hn::Mul(f, hn::LoadU(df, rb[i] + e)));
      y1 = hn::Add(y1, hn::Mul(f, hn::LoadU(df, rb[i] + e + N)));
    }
    put(hn::Add(x0, y0), e);
    put(hn::Add(x1, y1), e + N);
  }
  for (; e < n; ++e) {
    float x = 0.f, y = 0.f;
    for (int i = 0; i < ka; ++i) x += a[i] * ra[i][e];
    for (int i = 0; i < kb; ++i) y += b[i] * rb[i][e];
    float v = x + y;
    if (out8) {
      v = v == v ? v : 0.f;
      v = v > -1.f ? v : -1.f;
      v = v < 256.f ? v : 256.f;
      const float r = std::nearbyint(v);
      out8[e] = static_cast<uint8_t>(r < 0.f ? 0 : r > 255.f ? 255 : static_cast<int>(r));
    } else {
      acc[e] = v;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::filter_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::filter_detail {
HWY_EXPORT(LaplacianRowPassImpl);
HWY_EXPORT(LaplacianColumnPassImpl);
void LaplacianRowPass(const float* p, int64_t n, int64_t step, const float* ws, int ks, int off_s, const float* wd,
                      int kd, int off_d, float* hs, float* hd) {
  HWY_DYNAMIC_DISPATCH(LaplacianRowPassImpl)(p, n, step, ws, ks, off_s, wd, kd, off_d, hs, hd);
}
void LaplacianColumnPass(const float* const* ra, const float* a, int ka, const float* const* rb, const float* b,
                         int kb, int64_t n, float* acc, uint8_t* out8) {
  HWY_DYNAMIC_DISPATCH(LaplacianColumnPassImpl)(ra, a, ka, rb, b, kb, n, acc, out8);
}
}  // namespace sluice::kernels::filter_detail
#endif
