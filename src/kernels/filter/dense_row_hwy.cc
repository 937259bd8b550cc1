// Highway (dynamic dispatch) rows of the dense filter: every tap's multiply-add over a register
// block of the row, then the uint8 conversion in SIMD. Contraction into FMA is switched off for
// this file: the sums must equal the scalar path's.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/filter/dense_row_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include <cmath>

#include "kernels/filter/dense_row_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::filter_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::StoreFloatOrU8;

// One output row of a dense filter: acc[e] = 0 + w[0] * rows[0][e] + w[1] * rows[1][e] + ... (each
// product then its sum: never fused), kept in registers across the taps; then either stored as
// float (out8 == nullptr) or converted to uint8 as convolution.cc's StoreSat (NaN -> 0, round to
// nearest even, saturate) into out8.
void DenseRowImpl(const float* const* rows, const float* w, int taps, int64_t n, float* acc, uint8_t* out8) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  auto put = [&](hn::Vec<decltype(df)> v, int64_t at) { StoreFloatOrU8(df, d8, v, acc, out8, at); };
  int64_t e = 0;
  for (; e + 4 * N <= n; e += 4 * N) {
    auto a0 = hn::Zero(df), a1 = a0, a2 = a0, a3 = a0;
    for (int t = 0; t < taps; ++t) {
      const auto f = hn::Set(df, w[t]);
      const float* r = rows[t] + e;
      a0 = hn::Add(a0, hn::Mul(f, hn::LoadU(df, r)));
      a1 = hn::Add(a1, hn::Mul(f, hn::LoadU(df, r + N)));
      a2 = hn::Add(a2, hn::Mul(f, hn::LoadU(df, r + 2 * N)));
      a3 = hn::Add(a3, hn::Mul(f, hn::LoadU(df, r + 3 * N)));
    }
    put(a0, e);
    put(a1, e + N);
    put(a2, e + 2 * N);
    put(a3, e + 3 * N);
  }
  for (; e + N <= n; e += N) {
    auto a = hn::Zero(df);
    for (int t = 0; t < taps; ++t) a = hn::Add(a, hn::Mul(hn::Set(df, w[t]), hn::LoadU(df, rows[t] + e)));
    put(a, e);
  }
  for (; e < n; ++e) {
    float a = 0.f;
    for (int t = 0; t < taps; ++t) a += w[t] * rows[t][e];
    if (out8) {
      a = a == a ? a : 0.f;
      a = a > -1.f ? a : -1.f;
      a = a < 256.f ? a : 256.f;
      const float r = std::nearbyint(a);
      out8[e] = static_cast<uint8_t>(r < 0.f ? 0 : r > 255.f ? 255 : static_cast<int>(r));
    } else {
      acc[e] = a;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::filter_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::filter_detail {
HWY_EXPORT(DenseRowImpl);
void DenseRow(const float* const* rows, const float* w, int taps, int64_t n, float* acc, uint8_t* out8) {
  HWY_DYNAMIC_DISPATCH(DenseRowImpl)(rows, w, taps, n, acc, out8);
}
}  // namespace sluice::kernels::filter_detail
#endif
