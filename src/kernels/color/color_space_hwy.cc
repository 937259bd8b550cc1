// Highway (dynamic dispatch) uint8 colour-space rows: de-interleave, widen to float, the scalar
// path's expressions term by term, round to nearest even, saturate, re-interleave. Contraction
// into FMA is off for this file so that results equal the scalar path's on every target.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/color_space_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include <cmath>

#include "kernels/color/color_space_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::color_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundSaturateToU8;

// kernels::ConvertSaturate<uint8_t>(float).
HWY_INLINE uint8_t ScalarU8(float v) {
  if (std::isnan(v)) return 0;
  const float r = std::nearbyint(v);
  return static_cast<uint8_t>(r >= 255.f ? 255.f : (r <= 0.f ? 0.f : r));
}

template <bool kYCbCr>
void ConvertRows(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t n, bool bgr) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t N = hn::Lanes(df);
  auto widen = [&](hn::Vec<decltype(d8)> v) { return hn::ConvertTo(df, hn::PromoteTo(di, v)); };
  auto narrow = [&](hn::Vec<decltype(df)> v) { return RoundSaturateToU8(df, d8, v); };
  // color_space.cc's constants (uint8: bias 256 -> offsets 16 and 128).
  constexpr float kY = 0.0625f * 256.0f, kC = 0.5f * 256.0f;
  size_t x = 0;
  for (; x + N <= n; x += N) {
    hn::Vec<decltype(d8)> c0, c1, c2;
    hn::LoadInterleaved3(d8, in + 3 * x, c0, c1, c2);
    const auto r = widen(bgr ? c2 : c0), g = widen(c1), b = widen(bgr ? c0 : c2);
    if constexpr (!kYCbCr) {
      const auto y = hn::Add(hn::Add(hn::Mul(hn::Set(df, 0.299f), r), hn::Mul(hn::Set(df, 0.587f), g)),
                             hn::Mul(hn::Set(df, 0.114f), b));
      hn::StoreU(narrow(y), d8, out + x);
    } else {
      auto k = [&](float v) { return hn::Set(df, v); };
      // The scalar order: ((a r + b g) + c b) + kY, ((-a r - b g) + c b) + kC, ((a r - b g) - c b) + kC.
      const auto y = hn::Add(
          hn::Add(hn::Add(hn::Mul(k(0.25678823529f), r), hn::Mul(k(0.50412941176f), g)), hn::Mul(k(0.09790588235f), b)),
          k(kY));
      const auto cb = hn::Add(
          hn::Add(hn::Sub(hn::Mul(k(-0.14822289945f), r), hn::Mul(k(0.29099278682f), g)),
                  hn::Mul(k(0.43921568627f), b)),
          k(kC));
      const auto cr = hn::Add(
          hn::Sub(hn::Sub(hn::Mul(k(0.43921568627f), r), hn::Mul(k(0.36778831435f), g)), hn::Mul(k(0.07142737192f), b)),
          k(kC));
      hn::StoreInterleaved3(narrow(y), narrow(cb), narrow(cr), d8, out + 3 * x);
    }
  }
  for (; x < n; ++x) {
    const uint8_t* p = in + 3 * x;
    const float r = p[bgr ? 2 : 0], g = p[1], b = p[bgr ? 0 : 2];
    if constexpr (!kYCbCr) {
      out[x] = ScalarU8(0.299f * r + 0.587f * g + 0.114f * b);
    } else {
      out[3 * x] = ScalarU8(0.25678823529f * r + 0.50412941176f * g + 0.09790588235f * b + kY);
      out[3 * x + 1] = ScalarU8(-0.14822289945f * r - 0.29099278682f * g + 0.43921568627f * b + kC);
      out[3 * x + 2] = ScalarU8(0.43921568627f * r - 0.36778831435f * g - 0.07142737192f * b + kC);
    }
  }
}

void RgbToGrayImpl(const uint8_t* in, uint8_t* out, size_t n, bool bgr) { ConvertRows<false>(in, out, n, bgr); }
void RgbToYCbCrImpl(const uint8_t* in, uint8_t* out, size_t n, bool bgr) { ConvertRows<true>(in, out, n, bgr); }

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::color_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::color_detail {
HWY_EXPORT(RgbToGrayImpl);
HWY_EXPORT(RgbToYCbCrImpl);
void RgbToGrayU8(const uint8_t* in, uint8_t* out, size_t pixels, bool bgr) {
  HWY_DYNAMIC_DISPATCH(RgbToGrayImpl)(in, out, pixels, bgr);
}
void RgbToYCbCrU8(const uint8_t* in, uint8_t* out, size_t pixels, bool bgr) {
  HWY_DYNAMIC_DISPATCH(RgbToYCbCrImpl)(in, out, pixels, bgr);
}
}  // namespace sluice::kernels::color_detail
#endif
