// Highway (dynamic dispatch) uint8 -> uint8 colour matrix: de-interleave 3 channels, widen to
// float, 3x3 multiply-add, round to nearest even, saturate, re-interleave.
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

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::color_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundSaturateToU8;

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
  auto narrow = [&](hn::Vec<decltype(df)> v) {
    return RoundSaturateToU8(df, d8, v);
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

// Fixed point (color_matrix_hwy.h's MatrixFixedU8): 32 pixels per AVX2 step. Channel pairs (r, g)
// and (b, 0) are interleaved as int16 and multiplied by the coefficient pairs with one
// multiply-add-pairs each, as OpenCV's cv::transform does (with more fraction bits: 12 to 14).
// InterleaveLower/Upper and the int32 -> int16 demote both work per 128-bit block, so their lane
// orders cancel and the pixels come out in order on every x86 target.
size_t MatrixRowU8FixedImpl(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t n,
                            const MatrixFixedU8& q) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)n, (void)q;
  return 0;
#else
  const hn::ScalableTag<uint8_t> d8;
  const hn::Half<decltype(d8)> dh8;
  const hn::Repartition<int16_t, decltype(d8)> d16;
  const hn::Repartition<int32_t, decltype(d8)> d32;
  const size_t N = hn::Lanes(d8);
  auto pair = [&](int16_t lo, int16_t hi) {
    const uint32_t bits = uint32_t(uint16_t(lo)) | (uint32_t(uint16_t(hi)) << 16);
    return hn::BitCast(d16, hn::Set(d32, static_cast<int32_t>(bits)));
  };
  const decltype(pair(0, 0)) rg[3] = {pair(q.m[0], q.m[1]), pair(q.m[3], q.m[4]), pair(q.m[6], q.m[7])};
  const decltype(pair(0, 0)) bz[3] = {pair(q.m[2], 0), pair(q.m[5], 0), pair(q.m[8], 0)};
  const decltype(hn::Set(d32, 0)) off[3] = {hn::Set(d32, q.off[0]), hn::Set(d32, q.off[1]), hn::Set(d32, q.off[2])};
  const auto zero16 = hn::Zero(d16);
  const int shift = q.shift;
  // One channel of 16 pixels (int16 pairs in, uint8 half vector out).
  auto channel = [&](int c, hn::Vec<decltype(d16)> rg_lo, hn::Vec<decltype(d16)> rg_hi, hn::Vec<decltype(d16)> b_lo,
                     hn::Vec<decltype(d16)> b_hi) {
    auto unused = hn::Zero(d32);
    auto lo = hn::ReorderWidenMulAccumulate(d32, rg_lo, rg[c], off[c], unused);
    lo = hn::ReorderWidenMulAccumulate(d32, b_lo, bz[c], lo, unused);
    lo = hn::RearrangeToOddPlusEven(lo, unused);
    unused = hn::Zero(d32);
    auto hi = hn::ReorderWidenMulAccumulate(d32, rg_hi, rg[c], off[c], unused);
    hi = hn::ReorderWidenMulAccumulate(d32, b_hi, bz[c], hi, unused);
    hi = hn::RearrangeToOddPlusEven(hi, unused);
    const auto v16 = hn::ReorderDemote2To(d16, hn::ShiftRightSame(lo, shift), hn::ShiftRightSame(hi, shift));
    return hn::DemoteTo(dh8, v16);  // saturates to 0..255
  };
  size_t x = 0;
  for (; x + N <= n; x += N) {
    hn::Vec<decltype(d8)> r8, g8, b8;
    hn::LoadInterleaved3(d8, in + 3 * x, r8, g8, b8);
    hn::Vec<decltype(dh8)> o_lo[3], o_hi[3];
    for (int half = 0; half < 2; ++half) {
      auto widen = [&](hn::Vec<decltype(d8)> v) {
        return hn::BitCast(d16, half == 0 ? hn::PromoteTo(hn::RebindToUnsigned<decltype(d16)>(), hn::LowerHalf(dh8, v))
                                          : hn::PromoteTo(hn::RebindToUnsigned<decltype(d16)>(), hn::UpperHalf(dh8, v)));
      };
      const auto r = widen(r8), g = widen(g8), b = widen(b8);
      const auto rg_lo = hn::InterleaveLower(d16, r, g), rg_hi = hn::InterleaveUpper(d16, r, g);
      const auto b_lo = hn::InterleaveLower(d16, b, zero16), b_hi = hn::InterleaveUpper(d16, b, zero16);
      for (int c = 0; c < 3; ++c) (half == 0 ? o_lo : o_hi)[c] = channel(c, rg_lo, rg_hi, b_lo, b_hi);
    }
    hn::StoreInterleaved3(hn::Combine(d8, o_hi[0], o_lo[0]), hn::Combine(d8, o_hi[1], o_lo[1]),
                          hn::Combine(d8, o_hi[2], o_lo[2]), d8, out + 3 * x);
  }
  return x;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::color_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::color_detail {
HWY_EXPORT(MatrixRowU8Impl);
HWY_EXPORT(MatrixRowU8FixedImpl);

std::optional<MatrixFixedU8> QuantizeMatrix(const float* m, const float* off) {
  float max_m = 0, max_off = 0;
  for (int k = 0; k < 9; ++k) max_m = std::max(max_m, std::abs(m[k]));
  for (int c = 0; c < 3; ++c) max_off = std::max(max_off, std::abs(off[c]));
  if (!std::isfinite(max_m) || !std::isfinite(max_off) || max_off > 65536.0f) return std::nullopt;
  for (int shift = kMatrixMaxShift; shift >= kMatrixMinShift; --shift) {
    const float scale = static_cast<float>(1 << shift);
    if (std::lround(max_m * scale) > INT16_MAX) continue;
    MatrixFixedU8 q{};
    q.shift = shift;
    for (int k = 0; k < 9; ++k) q.m[k] = static_cast<int16_t>(std::lround(m[k] * scale));
    for (int c = 0; c < 3; ++c)
      q.off[c] = static_cast<int32_t>(std::lround(static_cast<double>(off[c]) * scale)) + (1 << (shift - 1));
    return q;
  }
  return std::nullopt;
}

void MatrixRowU8Fixed(const uint8_t* in, uint8_t* out, size_t n, const MatrixFixedU8& q) {
  size_t x = HWY_DYNAMIC_DISPATCH(MatrixRowU8FixedImpl)(in, out, n, q);
  for (; x < n; ++x) {
    const int32_t r = in[3 * x], g = in[3 * x + 1], b = in[3 * x + 2];
    for (int c = 0; c < 3; ++c) {
      const int32_t v = (q.m[3 * c] * r + q.m[3 * c + 1] * g + q.m[3 * c + 2] * b + q.off[c]) >> q.shift;
      out[3 * x + static_cast<size_t>(c)] = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  }
}

void MatrixRowU8(const uint8_t* in, uint8_t* out, size_t n, const float* m, const float* off) {
  if (const auto q = QuantizeMatrix(m, off)) {
    MatrixRowU8Fixed(in, out, n, *q);
    return;
  }
  HWY_DYNAMIC_DISPATCH(MatrixRowU8Impl)(in, out, n, m, off);
}
}  // namespace sluice::kernels::color_detail
#endif
