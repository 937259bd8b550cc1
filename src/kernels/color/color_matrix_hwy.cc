// Highway (dynamic dispatch) uint8 -> uint8 colour matrix: de-interleave 3 channels, widen to
// float, DALI's 3x3 dot products and offset (no fused multiply-add), round to nearest (ties away
// from zero), saturate, re-interleave.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/color_matrix_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include <algorithm>
#include <cmath>

#include "kernels/color/color_matrix_hwy.h"
#include "kernels/tensor/cast.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::color_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundAwaySaturateToU8;
using sluice::kernels::HWY_NAMESPACE::Unfused;

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
  auto widen = [&](hn::Vec<decltype(d8)> v) { return hn::ConvertTo(df, hn::PromoteTo(di, v)); };
  // DALI's order: the dot product left to right, then the offset; separate multiplies and adds.
  auto row = [&](auto r, auto g, auto b, auto c0, auto c1, auto c2, auto o) {
    return hn::Add(hn::Add(hn::Add(Unfused(hn::Mul(r, c0)), Unfused(hn::Mul(g, c1))), Unfused(hn::Mul(b, c2))), o);
  };
  size_t x = 0;
  for (; x + N <= n; x += N) {
    hn::Vec<decltype(d8)> r8, g8, b8;
    hn::LoadInterleaved3(d8, in + 3 * x, r8, g8, b8);
    const auto r = widen(r8), g = widen(g8), b = widen(b8);
    hn::StoreInterleaved3(RoundAwaySaturateToU8(df, d8, row(r, g, b, m00, m01, m02, o0)),
                          RoundAwaySaturateToU8(df, d8, row(r, g, b, m10, m11, m12, o1)),
                          RoundAwaySaturateToU8(df, d8, row(r, g, b, m20, m21, m22, o2)), d8, out + 3 * x);
  }
  for (; x < n; ++x) {
    const float r = in[3 * x], g = in[3 * x + 1], b = in[3 * x + 2];
    for (int c = 0; c < 3; ++c) {
      volatile float dot = r * m[3 * c];  // volatile: each operation rounded on its own, as the vectors
      dot = dot + g * m[3 * c + 1];
      dot = dot + b * m[3 * c + 2];
      out[3 * x + static_cast<size_t>(c)] = CastValue<uint8_t>(dot + off[c]);
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
