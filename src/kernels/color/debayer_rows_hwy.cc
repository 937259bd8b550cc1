// Highway rows of the uint8 demosaicing (debayer_rows_hwy.h). Bilinear and edge-aware: 256-bit
// vectors of 32 pairs (then 128-bit ones of 16), sources deinterleaved into even and odd columns,
// 4-term averages in 16 bits.
// Gray: OpenCV 5's 128-bit steps (exact formulas), one per 128-bit block of a full-width vector. VNG: gradient planes
// and pixels at the target's full width.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/debayer_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <utility>

#include "kernels/color/debayer_rows_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::debayer_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// No 128-bit vectors: the caller's scalar loop does every pair.
int64_t DebayerPairsU8Impl(const uint8_t*, const uint8_t*, const uint8_t*, uint8_t*, int64_t, int64_t, int, bool) {
  return 0;
}
bool DebayerGrayStepsImpl(const uint8_t*, const uint8_t*, const uint8_t*, uint8_t*, int64_t, uint32_t, uint32_t,
                          uint32_t) {
  return false;
}
bool DebayerVngBlocksImpl(const uint8_t*, int64_t, const uint16_t*, const uint16_t*, const uint16_t*, int64_t, int64_t,
                          int, uint8_t*) {
  return false;
}
int64_t DebayerVngGradientsImpl(const uint8_t*, const uint8_t*, const uint8_t*, int64_t, uint16_t*) { return 1; }
#else
using D8 = hn::Full128<uint8_t>;
using V8 = hn::Vec<D8>;

// (a + b + c + d + 2) >> 2, exact.
template <class V>
HWY_INLINE V Average4(V a, V b, V c, V d) {
  const hn::DFromV<V> d8;
  const hn::RepartitionToWide<decltype(d8)> d16;
  const hn::Half<decltype(d8)> dh;
  const auto two = hn::Set(d16, 2);
  auto lo = hn::Add(hn::Add(hn::PromoteTo(d16, hn::LowerHalf(dh, a)), hn::PromoteTo(d16, hn::LowerHalf(dh, b))),
                    hn::Add(hn::PromoteTo(d16, hn::LowerHalf(dh, c)), hn::PromoteTo(d16, hn::LowerHalf(dh, d))));
  auto hi = hn::Add(hn::Add(hn::PromoteTo(d16, hn::UpperHalf(dh, a)), hn::PromoteTo(d16, hn::UpperHalf(dh, b))),
                    hn::Add(hn::PromoteTo(d16, hn::UpperHalf(dh, c)), hn::PromoteTo(d16, hn::UpperHalf(dh, d))));
  lo = hn::ShiftRight<2>(hn::Add(lo, two));
  hi = hn::ShiftRight<2>(hn::Add(hi, two));
  const hn::RebindToSigned<decltype(d16)> di16;  // u16 -> u8 demotion goes through int16 (values <= 255)
  return hn::Combine(d8, hn::DemoteTo(dh, hn::BitCast(di16, hi)), hn::DemoteTo(dh, hn::BitCast(di16, lo)));
}

template <class V>
HWY_INLINE V AbsDiffU8(V a, V b) { return hn::Or(hn::SaturatedSub(a, b), hn::SaturatedSub(b, a)); }

// Lanes(d) pairs from column xs (128 or 256 bits).
template <class D>
HWY_INLINE void Pairs(D d, const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* row, int64_t xs,
                      int own, bool edge_aware) {
  static_assert(hn::MaxLanes(D()) <= 32, "Pairs orders at most two blocks");
  using V8 = hn::Vec<D>;
  {
    V8 e, o, om, e2, ue, uo, uom, de, dd, dom, unused;
    hn::LoadInterleaved2(d, mid + xs, e, o);          // mid[x], mid[x + 1]
    hn::LoadInterleaved2(d, mid + xs - 1, om, unused);  // mid[x - 1]
    hn::LoadInterleaved2(d, mid + xs + 1, unused, e2);  // mid[x + 2]
    hn::LoadInterleaved2(d, up + xs - 1, uom, ue);      // up[x - 1], up[x]
    hn::LoadInterleaved2(d, up + xs, unused, uo);       // up[x + 1]
    hn::LoadInterleaved2(d, down + xs - 1, dom, de);
    hn::LoadInterleaved2(d, down + xs, unused, dd);
    // The red-or-blue pixel: its colour, green from the cross, the other colour from the corners.
    V8 green_c;
    if (edge_aware) {
      const auto horiz_steeper = hn::Gt(AbsDiffU8(om, o), AbsDiffU8(de, ue));
      green_c = hn::IfThenElse(horiz_steeper, hn::AverageRound(ue, de), hn::AverageRound(om, o));
    } else {
      green_c = Average4(ue, de, om, o);
    }
    const V8 other_c = Average4(uom, uo, dom, dd);
    // The green pixel: the row's colour from left and right, the other from up and down.
    const V8 own_g = hn::AverageRound(e, e2);
    const V8 other_g = hn::AverageRound(uo, dd);
    V8 own_lo = hn::InterleaveLower(d, e, own_g), own_hi = hn::InterleaveUpper(d, e, own_g);
    V8 g_lo = hn::InterleaveLower(d, green_c, o), g_hi = hn::InterleaveUpper(d, green_c, o);
    V8 oth_lo = hn::InterleaveLower(d, other_c, other_g), oth_hi = hn::InterleaveUpper(d, other_c, other_g);
    if constexpr (hn::MaxLanes(D()) == 32) {  // interleaving is per 128-bit block: put the blocks in order
      auto order = [&](V8& lo, V8& hi) {
        const V8 first = hn::ConcatLowerLower(d, hi, lo), second = hn::ConcatUpperUpper(d, hi, lo);
        lo = first, hi = second;
      };
      order(own_lo, own_hi), order(g_lo, g_hi), order(oth_lo, oth_hi);
    }
    uint8_t* out = row + 3 * xs;
    if (own == 0) {
      hn::StoreInterleaved3(own_lo, g_lo, oth_lo, d, out);
      hn::StoreInterleaved3(own_hi, g_hi, oth_hi, d, out + 3 * hn::Lanes(d));
    } else {
      hn::StoreInterleaved3(oth_lo, g_lo, own_lo, d, out);
      hn::StoreInterleaved3(oth_hi, g_hi, own_hi, d, out + 3 * hn::Lanes(d));
    }
  }
}

int64_t DebayerPairsU8Impl(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* row, int64_t x0,
                           int64_t pairs, int own, bool edge_aware) {
  const hn::CappedTag<uint8_t, 32> d;  // up to 256 bits (two blocks; see Pairs)
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  constexpr int64_t kPairs = 16;
  int64_t k = 0;
  for (; k + lanes <= pairs; k += lanes) Pairs(d, up, mid, down, row, x0 + 2 * k, own, edge_aware);
  for (; k + kPairs <= pairs; k += kPairs) Pairs(D8(), up, mid, down, row, x0 + 2 * k, own, edge_aware);
  return k;
}

// OpenCV's 14-pixel steps, one per 128-bit block: a vector of K blocks does steps s .. s + K - 1
// (every operation below stays within a block). Blocks load from and store to 14 bytes apart, in
// order, so each step's 2 spare bytes are rewritten by the next, as in OpenCV.
template <class D8>
HWY_INLINE hn::Vec<D8> LoadSteps(D8 d8, const uint8_t* p) {
  if constexpr (hn::MaxLanes(D8()) <= 16) {
    return hn::LoadU(d8, p);
  } else {
    const hn::Half<D8> dh;
    return hn::Combine(d8, LoadSteps(dh, p + 14 * (hn::MaxLanes(dh) / 16)), LoadSteps(dh, p));
  }
}
template <class D8>
HWY_INLINE void StoreSteps(D8 d8, hn::Vec<D8> v, uint8_t* p) {
  if constexpr (hn::MaxLanes(D8()) <= 16) {
    hn::StoreU(v, d8, p);
  } else {
    const hn::Half<D8> dh;
    StoreSteps(dh, hn::LowerHalf(dh, v), p);
    StoreSteps(dh, hn::UpperHalf(dh, v), p + 14 * (hn::MaxLanes(dh) / 16));
  }
}

// (a * ka + b * kb + c * kc + 2^15) >> 16 of 16-bit lanes, exact: as OpenCV 5, pairs of 16-bit
// products summed into 32 bits (x86's pmaddwd): (a, c) . (ka, kc) + (b, 2^14) . (kb, 2). Sums are
// under 2^10 and weights under 2^15; the weights sum to 2^16, so every result is at most 255.
template <class D16>
HWY_INLINE hn::Vec<D16> Weighted(D16 d, hn::Vec<D16> a, uint32_t ka, hn::Vec<D16> b, uint32_t kb, hn::Vec<D16> c,
                                 uint32_t kc) {
  const hn::RebindToSigned<D16> di;
  const hn::Repartition<int32_t, D16> d32;
  const auto k_ac = hn::BitCast(di, hn::Set(d32, static_cast<int32_t>((kc << 16) | ka)));
  const auto k_b2 = hn::BitCast(di, hn::Set(d32, static_cast<int32_t>((2u << 16) | kb)));
  const auto descale = hn::Set(di, int16_t{1 << 14});
  auto dot = [&](hn::Vec<decltype(di)> x, hn::Vec<decltype(di)> y, hn::Vec<decltype(di)> k) {
    // Lanes 2i, 2i + 1 of zip(x, y): x_i, y_i (per 128-bit block, undone by ReorderDemote2To).
    auto odd = hn::Zero(d32);
    const auto sum = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveLower(di, x, y), k, hn::Zero(d32), odd);
    auto odd2 = hn::Zero(d32);
    const auto sum2 = hn::ReorderWidenMulAccumulate(d32, hn::InterleaveUpper(di, x, y), k, hn::Zero(d32), odd2);
    return std::pair{hn::RearrangeToOddPlusEven(sum, odd), hn::RearrangeToOddPlusEven(sum2, odd2)};
  };
  const auto ai = hn::BitCast(di, a), bi = hn::BitCast(di, b), ci = hn::BitCast(di, c);
  const auto [ac_lo, ac_hi] = dot(ai, ci, k_ac);
  const auto [b_lo, b_hi] = dot(bi, descale, k_b2);
  const auto lo = hn::ShiftRight<16>(hn::Add(ac_lo, b_lo)), hi = hn::ShiftRight<16>(hn::Add(ac_hi, b_hi));
  return hn::BitCast(d, hn::ReorderDemote2To(di, lo, hi));
}

// OpenCV 5's gray steps: 14 pixels (7 pairs: red-or-blue pixel, then green) per 16-byte block, the
// scalar formulas exactly (its SIMD code computes them with 32-bit dot products).
template <class D8>
HWY_INLINE void GraySteps(D8 d8, const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* dst,
                          uint32_t rc, uint32_t g2y, uint32_t bc) {
  const hn::Repartition<uint16_t, D8> d;
  auto rot = [&](hn::Vec<decltype(d)> v) { return hn::ShiftRightLanes<1>(d, v); };  // lane i <- lane i + 1, top 0
  const auto lo = [&](hn::Vec<decltype(d)> v) { return hn::And(v, hn::Set(d, 0xFF)); };
  const auto r0 = hn::BitCast(d, LoadSteps(d8, up));  // lane k: byte 2k low, byte 2k + 1 high
  const auto r1 = hn::BitCast(d, LoadSteps(d8, mid));
  const auto r2 = hn::BitCast(d, LoadSteps(d8, down));
  // Lane k: the red-or-blue pixel whose top-left neighbour is byte 2k, and the green one after it.
  const auto ud_even = hn::Add(lo(r0), lo(r2));                       // up[2k] + down[2k]
  const auto corners = hn::Add(ud_even, rot(ud_even));               // the four corners
  const auto mid_even = lo(r1), mid_odd = hn::ShiftRight<8>(r1);      // mid[2k], mid[2k + 1]
  const auto cross = hn::Add(hn::Add(hn::ShiftRight<8>(r0), hn::ShiftRight<8>(r2)), hn::Add(mid_even, rot(mid_even)));
  const auto even = Weighted(d, corners, rc, cross, g2y, hn::ShiftLeft<2>(mid_odd), bc);
  // The green pixel: the vertical pair (rc), the horizontal pair (bc), itself (2 * g2y); shift 15.
  const auto vert = hn::ShiftLeft<1>(rot(ud_even));
  const auto horiz = hn::ShiftLeft<1>(hn::Add(mid_odd, rot(mid_odd)));
  const auto odd = Weighted(d, vert, rc, horiz, bc, hn::ShiftLeft<2>(rot(mid_even)), g2y);
  // Byte 2k takes even's lane k, byte 2k + 1 odd's.
  StoreSteps(d8, hn::BitCast(d8, hn::Or(even, hn::ShiftLeft<8>(odd))), dst);
}

bool DebayerGrayStepsImpl(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* dst, int64_t steps,
                          uint32_t rc, uint32_t g2y, uint32_t bc) {
  const hn::ScalableTag<uint8_t> d8;
  const int64_t per_vector = static_cast<int64_t>(hn::MaxLanes(d8) / 16);
  int64_t s = 0;
  for (; s + per_vector <= steps; s += per_vector)
    GraySteps(d8, up + 14 * s, mid + 14 * s, down + 14 * s, dst + 14 * s, rc, g2y, bc);
  for (; s < steps; ++s) GraySteps(D8(), up + 14 * s, mid + 14 * s, down + 14 * s, dst + 14 * s, rc, g2y, bc);
  return true;
}

// One vector of Lanes(d) pixels of OpenCV's SIMD VNG from column x (red-or-blue: even lanes are
// red-or-blue, odd lanes green). Lanes are independent, so a vector of 16 or 32 pixels gives what
// 2 or 4 of OpenCV's 8-pixel blocks give.
template <class D16>
HWY_INLINE void VngVector(D16 d, const uint8_t* s, int64_t w, const uint16_t* g0, const uint16_t* g1,
                          const uint16_t* g2, int64_t x, int blue_idx, uint8_t* out) {
  // `out` is the output pixel of column x.
  using V16 = hn::Vec<D16>;
  const hn::RebindToSigned<D16> di;
  const hn::Half<decltype(di)> dih;
  const hn::Rebind<int32_t, decltype(dih)> d32;
  const hn::Rebind<float, decltype(d32)> df;
  const hn::Rebind<uint8_t, D16> d8;
  enum { kVert, kHoriz, kDiagNE, kDiagNW, kWideNE, kWideNW, kHalfCross };
  const V16 one = hn::Set(d, 1);
  auto px = [&](int dy, int dx) { return hn::PromoteTo(d, hn::LoadU(d8, s + dy * w + x + dx)); };
  auto pl = [&](const uint16_t* g, int plane, int dx) { return hn::LoadU(d, g + plane * w + x + dx); };
  // Even lanes: red-or-blue pixels; odd lanes: green ones (OddEven(odd, even)).
  auto merge = [](auto even, auto odd) { return hn::OddEven(odd, even); };
  const V16 grad_n = hn::Add(pl(g0, kVert, 0), pl(g1, kVert, 0));
  const V16 grad_s = hn::Add(pl(g1, kVert, 0), pl(g2, kVert, 0));
  const V16 grad_w = hn::Add(pl(g1, kHoriz, -1), pl(g1, kHoriz, 0));
  const V16 grad_e = hn::Add(pl(g1, kHoriz, 0), pl(g1, kHoriz, 1));
  const V16 grad_ne = merge(hn::Add(pl(g0, kWideNE, 1), pl(g1, kWideNE, 0)),
                            hn::Add(hn::Add(pl(g0, kDiagNE, 0), pl(g0, kDiagNE, 1)),
                                    hn::Add(pl(g1, kDiagNE, 0), pl(g1, kDiagNE, 1))));
  const V16 grad_sw = merge(hn::Add(pl(g1, kWideNE, 0), pl(g2, kWideNE, -1)),
                            hn::Add(hn::Add(pl(g1, kDiagNE, 0), pl(g1, kDiagNE, -1)),
                                    hn::Add(pl(g2, kDiagNE, 0), pl(g2, kDiagNE, -1))));
  const V16 grad_nw = merge(hn::Add(pl(g0, kWideNW, -1), pl(g1, kWideNW, 0)),
                            hn::Add(hn::Add(pl(g0, kDiagNW, 0), pl(g0, kDiagNW, -1)),
                                    hn::Add(pl(g1, kDiagNW, 0), pl(g1, kDiagNW, -1))));
  const V16 grad_se = merge(hn::Add(pl(g1, kWideNW, 0), pl(g2, kWideNW, 1)),
                            hn::Add(hn::Add(pl(g1, kDiagNW, 0), pl(g1, kDiagNW, 1)),
                                    hn::Add(pl(g2, kDiagNW, 0), pl(g2, kDiagNW, 1))));
  const V16 lo = hn::Min(hn::Min(hn::Min(grad_n, grad_s), hn::Min(grad_w, grad_e)),
                         hn::Min(hn::Min(grad_ne, grad_sw), hn::Min(grad_nw, grad_se)));
  const V16 hi = hn::Max(hn::Max(hn::Max(grad_n, grad_s), hn::Max(grad_w, grad_e)),
                         hn::Max(hn::Max(grad_ne, grad_sw), hn::Max(grad_nw, grad_se)));
  const V16 thresh = hn::Add(lo, hn::Max(hn::ShiftRight<1>(hi), one));
  const V16 c = px(0, 0);
  V16 own = hn::Zero(d), a = hn::Zero(d), bb = hn::Zero(d), count = hn::Zero(d);
  auto add = [&](V16 grad, V16 own_sum, V16 a_sum, V16 b_sum) {
    const auto m = hn::Gt(thresh, grad);
    own = hn::Add(own, hn::IfThenElseZero(m, own_sum));
    a = hn::Add(a, hn::IfThenElseZero(m, a_sum));
    bb = hn::Add(bb, hn::IfThenElseZero(m, b_sum));
    count = hn::Add(count, hn::IfThenElseZero(m, one));
  };
  auto two = [](V16 v) { return hn::Add(v, v); };
  add(grad_n, hn::Add(px(-2, 0), c), merge(two(px(-1, 0)), hn::Add(px(-2, -1), px(-2, 1))),
      merge(hn::Add(px(-1, -1), px(-1, 1)), two(px(-1, 0))));
  add(grad_s, hn::Add(px(2, 0), c), merge(two(px(1, 0)), hn::Add(px(2, -1), px(2, 1))),
      merge(hn::Add(px(1, -1), px(1, 1)), two(px(1, 0))));
  add(grad_w, hn::Add(px(0, -2), c), two(px(0, -1)),
      merge(hn::Add(px(-1, -1), px(1, -1)), hn::Add(px(-1, -2), px(1, -2))));
  add(grad_e, hn::Add(px(0, 2), c), two(px(0, 1)),
      merge(hn::Add(px(-1, 1), px(1, 1)), hn::Add(px(-1, 2), px(1, 2))));
  add(grad_ne, merge(hn::Add(px(-2, 2), c), two(px(-1, 1))), merge(pl(g0, kHalfCross, 1), hn::Add(px(-2, 1), px(0, 1))),
      merge(two(px(-1, 1)), hn::Add(px(-1, 0), px(-1, 2))));
  add(grad_sw, merge(hn::Add(px(2, -2), c), two(px(1, -1))), merge(pl(g2, kHalfCross, -1), hn::Add(px(2, -1), px(0, -1))),
      merge(two(px(1, -1)), hn::Add(px(1, 0), px(1, -2))));
  add(grad_nw, merge(hn::Add(px(-2, -2), c), two(px(-1, -1))), merge(pl(g0, kHalfCross, -1), hn::Add(px(-2, -1), px(0, -1))),
      merge(two(px(-1, -1)), hn::Add(px(-1, -2), px(-1, 0))));
  add(grad_se, merge(hn::Add(px(2, 2), c), two(px(1, 1))), merge(pl(g2, kHalfCross, 1), hn::Add(px(2, 1), px(0, 1))),
      merge(two(px(1, 1)), hn::Add(px(1, 2), px(1, 0))));
  // c + round((sum - own) * (0.5f / count)), as OpenCV's SIMD code (float, round half to even).
  auto scaled = [&](V16 sum) {
    const auto diff = hn::Sub(hn::BitCast(di, sum), hn::BitCast(di, own));
    const auto n = hn::BitCast(di, count);
    auto half = [&](auto dlo, auto nlo) {
      const auto f = hn::ConvertTo(df, hn::PromoteTo(d32, dlo));
      const auto k = hn::Div(hn::Set(df, 0.5f), hn::ConvertTo(df, hn::PromoteTo(d32, nlo)));
      return hn::NearestInt(hn::Mul(f, k));
    };
    const auto lo32 = half(hn::LowerHalf(dih, diff), hn::LowerHalf(dih, n));
    const auto hi32 = half(hn::UpperHalf(dih, diff), hn::UpperHalf(dih, n));
    const auto packed = hn::Combine(di, hn::DemoteTo(dih, hi32), hn::DemoteTo(dih, lo32));
    return hn::SaturatedAdd(hn::BitCast(di, c), packed);
  };
  const auto va = scaled(a), vb = scaled(bb);
  const auto ci = hn::BitCast(di, c);
  const auto red = hn::DemoteTo(d8, merge(ci, va));    // the "red" channel: own colour, or a at green
  const auto green = hn::DemoteTo(d8, merge(va, ci));  // green: a at red-or-blue pixels, own at green
  const auto blue = hn::DemoteTo(d8, vb);
  if (blue_idx == 0) hn::StoreInterleaved3(blue, green, red, d8, out);
  else hn::StoreInterleaved3(red, green, blue, d8, out);
}

bool DebayerVngBlocksImpl(const uint8_t* s, int64_t w, const uint16_t* g0, const uint16_t* g1, const uint16_t* g2,
                          int64_t x0, int64_t blocks, int blue_idx, uint8_t* out) {
  const hn::ScalableTag<uint16_t> d;
  const int64_t per_vector = static_cast<int64_t>(hn::Lanes(d)) / 8;  // OpenCV blocks per vector
  int64_t b = 0;
  for (; b + per_vector <= blocks; b += per_vector) VngVector(d, s, w, g0, g1, g2, x0 + 8 * b, blue_idx, out + 24 * b);
  for (; b < blocks; ++b) VngVector(hn::Full128<uint16_t>(), s, w, g0, g1, g2, x0 + 8 * b, blue_idx, out + 24 * b);
  return true;
}

// The seven gradient planes of one mosaic row (debayer_vng.cc's Gradients), whole vectors of
// columns from 1 while x + lanes <= w - 1; exact integer arithmetic, so any vector width.
int64_t DebayerVngGradientsImpl(const uint8_t* u, const uint8_t* m, const uint8_t* dn, int64_t w, uint16_t* planes) {
  const hn::ScalableTag<uint16_t> d;
  const hn::Rebind<uint8_t, decltype(d)> d8;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  enum { kVert, kHoriz, kDiagNE, kDiagNW, kWideNE, kWideNW, kHalfCross };
  auto ad = [&](auto a, auto b) { return hn::PromoteTo(d, hn::Or(hn::SaturatedSub(a, b), hn::SaturatedSub(b, a))); };
  auto wide = [&](auto a) { return hn::PromoteTo(d, a); };
  int64_t x = 1;
  for (; x + lanes <= w - 1; x += lanes) {
    const auto s1 = hn::LoadU(d8, u + x - 1), s2 = hn::LoadU(d8, u + x), s3 = hn::LoadU(d8, u + x + 1);
    const auto s4 = hn::LoadU(d8, m + x - 1), s6 = hn::LoadU(d8, m + x + 1);
    const auto s7 = hn::LoadU(d8, dn + x - 1), s8 = hn::LoadU(d8, dn + x), s9 = hn::LoadU(d8, dn + x + 1);
    const auto ne = hn::ShiftLeft<1>(ad(s3, s7)), nw = hn::ShiftLeft<1>(ad(s1, s9));
    hn::StoreU(hn::Add(hn::Add(ad(s1, s7), hn::ShiftLeft<1>(ad(s2, s8))), ad(s3, s9)), d, planes + kVert * w + x);
    hn::StoreU(hn::Add(hn::Add(ad(s1, s3), hn::ShiftLeft<1>(ad(s4, s6))), ad(s7, s9)), d, planes + kHoriz * w + x);
    hn::StoreU(ne, d, planes + kDiagNE * w + x);
    hn::StoreU(nw, d, planes + kDiagNW * w + x);
    hn::StoreU(hn::Add(ne, hn::Add(ad(s2, s4), ad(s6, s8))), d, planes + kWideNE * w + x);
    hn::StoreU(hn::Add(nw, hn::Add(ad(s2, s6), ad(s4, s8))), d, planes + kWideNW * w + x);
    const auto cross = hn::Add(hn::Add(wide(s2), wide(s4)), hn::Add(wide(s6), wide(s8)));
    hn::StoreU(hn::ShiftRight<1>(cross), d, planes + kHalfCross * w + x);
  }
  return x;
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::debayer_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::debayer_detail {
HWY_EXPORT(DebayerPairsU8Impl);
HWY_EXPORT(DebayerGrayStepsImpl);
HWY_EXPORT(DebayerVngBlocksImpl);
HWY_EXPORT(DebayerVngGradientsImpl);
int64_t DebayerVngGradients(const uint8_t* up, const uint8_t* mid, const uint8_t* down, int64_t w, uint16_t* planes) {
  return HWY_DYNAMIC_DISPATCH(DebayerVngGradientsImpl)(up, mid, down, w, planes);
}
int64_t DebayerPairsU8(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* row, int64_t x0,
                       int64_t pairs, int own, bool edge_aware) {
  return HWY_DYNAMIC_DISPATCH(DebayerPairsU8Impl)(up, mid, down, row, x0, pairs, own, edge_aware);
}
bool DebayerGraySteps(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* dst, int64_t steps,
                      uint32_t rc, uint32_t g2y, uint32_t bc) {
  return HWY_DYNAMIC_DISPATCH(DebayerGrayStepsImpl)(up, mid, down, dst, steps, rc, g2y, bc);
}
bool DebayerVngBlocks(const uint8_t* s, int64_t w, const uint16_t* g0, const uint16_t* g1, const uint16_t* g2,
                      int64_t x0, int64_t blocks, int blue_idx, uint8_t* out) {
  return HWY_DYNAMIC_DISPATCH(DebayerVngBlocksImpl)(s, w, g0, g1, g2, x0, blocks, blue_idx, out);
}
}  // namespace sluice::kernels::debayer_detail
#endif
