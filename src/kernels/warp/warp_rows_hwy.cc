// Highway (dynamic dispatch) warp of uint8 RGB rows: coordinates for a group of pixels in double
// lanes, taps gathered as 32-bit loads (R, G, B and one byte more), blended in float lanes (linear)
// or copied (nearest).
// Contraction into FMA is switched off for this file: results must equal the scalar path's.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/warp/warp_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>

#include "kernels/warp/warp_rows_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::warp_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

size_t GroupSizeImpl() { return hn::Lanes(hn::ScalableTag<double>()); }

size_t LinearRowImpl(const WarpRowU8C3& a) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  constexpr double kLimit = 1 << 30;  // warp_affine.cc's kCoordLimit
  const auto lim_hi = hn::Set(dd, kLimit), lim_lo = hn::Set(dd, -kLimit), half = hn::Set(dd, 0.5);
  const auto m00 = hn::Set(dd, a.m00), m10 = hn::Set(dd, a.m10), bx = hn::Set(dd, a.bx), by = hn::Set(dd, a.by);
  const auto minus1_i = hn::Set(di, -1), w_i = hn::Set(di, static_cast<int32_t>(a.in_w)),
             h_i = hn::Set(di, static_cast<int32_t>(a.in_h)), one_i = hn::Set(di, 1), three_i = hn::Set(di, 3);
  const auto end_i = hn::Set(di, static_cast<int32_t>(a.in_h * a.in_w * 3 - 3));  // a 4-byte load starts before
  const auto mask8 = hn::Set(di, 0xFF);
  const auto one_f = hn::Set(df, 1.0f), zero_f = hn::Zero(df), max_f = hn::Set(df, 255.0f), half_f = hn::Set(df, 0.5f);
  const auto row_bytes = hn::Set(di, static_cast<int32_t>(a.in_w * 3));
  const int32_t* base = reinterpret_cast<const int32_t*>(a.in);
  size_t pending = 0;
  alignas(64) int32_t packed[64];
  const auto x_end = static_cast<size_t>(a.x_end);
  for (auto x = static_cast<size_t>(a.x_begin); x < x_end; x += N) {
    if (x + N > x_end) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      break;
    }
    // cx = x + 0.5; source = Limit(m * cx + b) - 0.5, as the scalar path.
    const auto cx = hn::Add(hn::Iota(dd, static_cast<double>(x)), half);
    const auto fx = hn::Sub(hn::Min(hn::Max(hn::Add(hn::Mul(m00, cx), bx), lim_lo), lim_hi), half);
    const auto fy = hn::Sub(hn::Min(hn::Max(hn::Add(hn::Mul(m10, cx), by), lim_lo), lim_hi), half);
    const auto flx = hn::Floor(fx), fly = hn::Floor(fy);
    const auto x0 = hn::DemoteTo(di, flx), y0 = hn::DemoteTo(di, fly);
    const auto off = hn::Add(hn::Mul(y0, row_bytes), hn::Mul(x0, three_i));
    // x0 >= 0, y0 >= 0, x0 + 1 < w, y0 + 1 < h, and the 4-byte load of the last tap within the image.
    const auto inside = hn::And(
        hn::And(hn::And(hn::Gt(x0, minus1_i), hn::Gt(y0, minus1_i)),
                hn::And(hn::Lt(hn::Add(x0, one_i), w_i), hn::Lt(hn::Add(y0, one_i), h_i))),
        hn::Lt(hn::Add(off, hn::Add(row_bytes, three_i)), end_i));
    if (!hn::AllTrue(di, inside)) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      continue;
    }
    const auto qx = hn::DemoteTo(df, hn::Sub(fx, flx)), qy = hn::DemoteTo(df, hn::Sub(fy, fly));
    const auto px = hn::Sub(one_f, qx);
    const auto t00 = hn::GatherOffset(di, base, off);
    const auto t01 = hn::GatherOffset(di, base, hn::Add(off, three_i));
    const auto t10 = hn::GatherOffset(di, base, hn::Add(off, row_bytes));
    const auto t11 = hn::GatherOffset(di, base, hn::Add(hn::Add(off, row_bytes), three_i));
    auto result = hn::Zero(di);
    auto channel = [&](hn::Vec<decltype(di)> t, int c) {
      return hn::ConvertTo(df, hn::And(hn::ShiftRightSame(t, 8 * c), mask8));
    };
    for (int c = 0; c < 3; ++c) {
      const auto s00 = channel(t00, c), s01 = channel(t01, c), s10 = channel(t10, c), s11 = channel(t11, c);
      const auto s0 = hn::Add(hn::Mul(s00, px), hn::Mul(s01, qx));
      const auto s1 = hn::Add(hn::Mul(s10, px), hn::Mul(s11, qx));
      const auto v = hn::Add(s0, hn::Mul(hn::Sub(s1, s0), qy));
      // ConvertSat<uint8_t>: 0 for v <= 0, 255 for v >= 255, else truncate(v + 0.5).
      const auto u = hn::ConvertTo(di, hn::Add(hn::Min(hn::Max(v, zero_f), max_f), half_f));
      result = hn::Or(result, hn::ShiftLeftSame(u, 8 * c));
    }
    hn::Store(result, di, packed);
    uint8_t* dst = a.row + 3 * x;
    for (size_t k = 0; k < N; ++k) std::memcpy(dst + 3 * k, &packed[k], 3);  // little-endian: R, G, B
  }
  return pending;
}

size_t NearestRowImpl(const WarpRowU8C3& a) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const size_t N = hn::Lanes(dd);
  constexpr double kLimit = 1 << 30;  // warp_affine.cc's kCoordLimit
  const auto lim_hi = hn::Set(dd, kLimit), lim_lo = hn::Set(dd, -kLimit), half = hn::Set(dd, 0.5);
  const auto m00 = hn::Set(dd, a.m00), m10 = hn::Set(dd, a.m10), bx = hn::Set(dd, a.bx), by = hn::Set(dd, a.by);
  const auto minus1_i = hn::Set(di, -1), w_i = hn::Set(di, static_cast<int32_t>(a.in_w)),
             h_i = hn::Set(di, static_cast<int32_t>(a.in_h)), three_i = hn::Set(di, 3);
  const auto end_i = hn::Set(di, static_cast<int32_t>(a.in_h * a.in_w * 3 - 3));  // a 4-byte load starts before
  const auto row_bytes = hn::Set(di, static_cast<int32_t>(a.in_w * 3));
  const int32_t* base = reinterpret_cast<const int32_t*>(a.in);
  size_t pending = 0;
  alignas(64) int32_t packed[64];
  const auto x_end = static_cast<size_t>(a.x_end);
  for (auto x = static_cast<size_t>(a.x_begin); x < x_end; x += N) {
    if (x + N > x_end) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      break;
    }
    // (ix, iy) = floor(Limit(m * (x + 0.5) + b)), as the scalar path.
    const auto cx = hn::Add(hn::Iota(dd, static_cast<double>(x)), half);
    const auto ix = hn::DemoteTo(di, hn::Floor(hn::Min(hn::Max(hn::Add(hn::Mul(m00, cx), bx), lim_lo), lim_hi)));
    const auto iy = hn::DemoteTo(di, hn::Floor(hn::Min(hn::Max(hn::Add(hn::Mul(m10, cx), by), lim_lo), lim_hi)));
    const auto off = hn::Add(hn::Mul(iy, row_bytes), hn::Mul(ix, three_i));
    const auto inside = hn::And(hn::And(hn::And(hn::Gt(ix, minus1_i), hn::Gt(iy, minus1_i)),
                                        hn::And(hn::Lt(ix, w_i), hn::Lt(iy, h_i))),
                                hn::Lt(off, end_i));
    if (!hn::AllTrue(di, inside)) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      continue;
    }
    hn::Store(hn::GatherOffset(di, base, off), di, packed);
    uint8_t* dst = a.row + 3 * x;
    for (size_t k = 0; k < N; ++k) std::memcpy(dst + 3 * k, &packed[k], 3);  // little-endian: R, G, B
  }
  return pending;
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::warp_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::warp_detail {
HWY_EXPORT(LinearRowImpl);
HWY_EXPORT(GroupSizeImpl);
HWY_EXPORT(NearestRowImpl);
size_t WarpNearestRowU8C3(const WarpRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(NearestRowImpl)(a); }
size_t WarpLinearRowU8C3(const WarpRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(LinearRowImpl)(a); }
size_t WarpRowGroupSize() { return HWY_DYNAMIC_DISPATCH(GroupSizeImpl)(); }
}  // namespace sluice::kernels::warp_detail
#endif
