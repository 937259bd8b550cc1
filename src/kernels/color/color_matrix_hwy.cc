// Highway (dynamic dispatch) uint8 -> uint8 colour matrix: de-interleave 3 channels, widen to
// float, 3x3 multiply-add, round to nearest even, saturate, re-interleave.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/color_matrix_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>

#include "kernels/color/color_matrix_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::color_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void MatrixRowU8Impl(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t n, const float* m,
                     const float* off) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t N = hn::Lanes(df);
  const auto m00 = hn::Set(df, m[0]), m01 = hn::Set(df, m[1]), m02 = hn::Set(df, m[2]);
  const auto m10 = hn::Set(df, m[3]), m11 = hn::Set(df, m[4]), m12 = hn::Set(df, m[5]);
  const auto m20 = hn::Set(df, m[6]), m21 = hn::Set(df, m[7]), m22 = hn::Set(df, m[8]);
  const auto o0 = hn::Set(df, off[0]), o1 = hn::Set(df, off[1]), o2 = hn::Set(df, off[2]);
  const auto lo = hn::Zero(df), hi = hn::Set(df, 255.0f);
  auto widen = [&](hn::Vec<decltype(d8)> v) { return hn::ConvertTo(df, hn::PromoteTo(di, v)); };
  auto narrow = [&](hn::Vec<decltype(df)> v) {
    return hn::DemoteTo(d8, hn::NearestInt(hn::Min(hn::Max(v, lo), hi)));
  };
  size_t x = 0;
  for (; x + N <= n; x += N) {
    hn::Vec<decltype(d8)> r8, g8, b8;
    hn::LoadInterleaved3(d8, in + 3 * x, r8, g8, b8);
    const auto r = widen(r8), g = widen(g8), b = widen(b8);
    const auto y0 = hn::MulAdd(r, m00, hn::MulAdd(g, m01, hn::MulAdd(b, m02, o0)));
    const auto y1 = hn::MulAdd(r, m10, hn::MulAdd(g, m11, hn::MulAdd(b, m12, o1)));
    const auto y2 = hn::MulAdd(r, m20, hn::MulAdd(g, m21, hn::MulAdd(b, m22, o2)));
    hn::StoreInterleaved3(narrow(y0), narrow(y1), narrow(y2), d8, out + 3 * x);
  }
  for (; x < n; ++x) {
    const float r = in[3 * x], g = in[3 * x + 1], b = in[3 * x + 2];
    for (int c = 0; c < 3; ++c) {
      const float v = std::fma(r, m[3 * c], std::fma(g, m[3 * c + 1], std::fma(b, m[3 * c + 2], off[c])));
      out[3 * x + static_cast<size_t>(c)] = static_cast<uint8_t>(std::nearbyint(std::min(std::max(v, 0.0f), 255.0f)));
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::color_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::color_detail {
HWY_EXPORT(MatrixRowU8Impl);
void MatrixRowU8(const uint8_t* in, uint8_t* out, size_t n, const float* m, const float* off) {
  HWY_DYNAMIC_DISPATCH(MatrixRowU8Impl)(in, out, n, m, off);
}
}  // namespace sluice::kernels::color_detail
#endif
