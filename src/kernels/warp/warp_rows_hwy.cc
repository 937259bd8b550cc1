// Highway (dynamic dispatch) warp of uint8 RGB rows: coordinates for a group of pixels in double
// lanes, taps gathered as 32-bit loads (R, G, B and one byte more), blended in float lanes (linear)
// or copied (nearest); the fixed-point linear rows: int32 coordinates from per-column tables, two
// 32-bit loads per tap row, blended with 16-bit weights (madd) and int32 lanes; and the rows from
// per-pixel points (warp_perspective, remap): the same blend, or a gathered copy (nearest).
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

#include <algorithm>
#include <cmath>
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

// [begin, end) of output x in [x0, x1) whose nearest source pixel (ix, iy) has 0 <= ix < w and
// 0 <= iy < h - 1, computed as the vector path does; an empty interval where there is none.
struct InsideInterval {
  size_t begin, end;
};
InsideInterval NearestInsideInterval(const WarpRowU8C3& a, size_t x0, size_t x1) {
  constexpr double kLimit = 1 << 30;
  auto coord = [&](double m, double b, size_t x) {
    return std::floor(std::min(std::max(m * (static_cast<double>(x) + 0.5) + b, -kLimit), kLimit));
  };
  auto inside = [&](size_t x) {
    const double ix = coord(a.m00, a.bx, x), iy = coord(a.m10, a.by, x);
    return ix >= 0 && ix < static_cast<double>(a.in_w) && iy >= 0 && iy < static_cast<double>(a.in_h - 1);
  };
  if (x1 <= x0) return {x0, x0};
  // Each of the four conditions holds on a prefix or a suffix of [x0, x1) (monotonic coordinates),
  // so they hold together on an interval: find a point in it, then its ends by bisection.
  size_t probe = x1;
  if (inside(x0)) probe = x0;
  else if (inside(x1 - 1)) probe = x1 - 1;
  else if (inside(x0 + (x1 - x0) / 2)) probe = x0 + (x1 - x0) / 2;
  if (probe == x1) return {x0, x0};
  size_t lo = x0, hi = probe;  // first inside x in (lo, hi]: inside(hi), and !inside(lo) unless lo == x0
  if (inside(x0)) {
    hi = x0;
  } else {
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      (inside(mid) ? hi : lo) = mid;
    }
  }
  const size_t begin = hi;
  lo = probe;
  hi = x1;  // last inside x: inside(lo), !inside(hi) unless hi == x1
  if (inside(x1 - 1)) {
    lo = x1 - 1;
  } else {
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      (inside(mid) ? lo : hi) = mid;
    }
  }
  return {begin, lo + 1};
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
  // The byte offset of each pixel of the group at x (floor(Limit(m * (x + 0.5) + b)), as the
  // scalar path) and whether every tap is inside the image.
  auto offsets = [&](size_t x, bool& inside) {
    const auto cx = hn::Add(hn::Iota(dd, static_cast<double>(x)), half);
    const auto ix = hn::DemoteTo(di, hn::Floor(hn::Min(hn::Max(hn::Add(hn::Mul(m00, cx), bx), lim_lo), lim_hi)));
    const auto iy = hn::DemoteTo(di, hn::Floor(hn::Min(hn::Max(hn::Add(hn::Mul(m10, cx), by), lim_lo), lim_hi)));
    const auto off = hn::Add(hn::Mul(iy, row_bytes), hn::Mul(ix, three_i));
    inside = hn::AllTrue(di, hn::And(hn::And(hn::And(hn::Gt(ix, minus1_i), hn::Gt(iy, minus1_i)),
                                             hn::And(hn::Lt(ix, w_i), hn::Lt(iy, h_i))),
                                     hn::Lt(off, end_i)));
    return off;
  };
  // One group: a 32-bit gather per pixel (R, G, B and one byte more), 3 bytes stored each.
  auto one_group = [&](size_t x) {
    bool inside;
    const auto off = offsets(x, inside);
    if (!inside) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      return;
    }
    hn::Store(hn::GatherOffset(di, base, off), di, packed);
    uint8_t* dst = a.row + 3 * x;
    for (size_t k = 0; k < N; ++k) std::memcpy(dst + 3 * k, &packed[k], 3);  // little-endian: R, G, B
  };
  const auto x_end = static_cast<size_t>(a.x_end);
  auto x = static_cast<size_t>(a.x_begin);
#if HWY_TARGET != HWY_SCALAR
  // Two groups at once where both are inside: one gather of twice the lanes, and the pixels packed
  // to 3 bytes by a byte shuffle per 128-bit block (12 bytes of each 16).
  const hn::Twice<decltype(di)> di2;
  const hn::Repartition<uint8_t, decltype(di2)> d8;
  alignas(16) static constexpr uint8_t kPack3[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
  const auto pack3 = hn::LoadDup128(d8, kPack3);
  const size_t blocks = hn::Lanes(di2) / 4;
  auto store_pair = [&](size_t at, hn::Vec<decltype(di)> off0, hn::Vec<decltype(di)> off1) {
    const auto px = hn::GatherOffset(di2, base, hn::Combine(di2, off1, off0));
    hn::Store(hn::BitCast(di2, hn::TableLookupBytesOr0(hn::BitCast(d8, px), pack3)), di2, packed);
    uint8_t* dst = a.row + 3 * at;
    const auto* bytes = reinterpret_cast<const uint8_t*>(packed);
    for (size_t b = 0; b < blocks; ++b) std::memcpy(dst + 12 * b, bytes + 16 * b, 12);
  };
  // The output pixels whose source pixel is inside the image and off its last row (so every
  // 4-byte load is in bounds) form one interval: the coordinates are monotonic in x (a product
  // and a sum, each correctly rounded, then floor). Inside it the per-lane checks and the clamp to
  // the coordinate limit are not needed.
  const InsideInterval in = NearestInsideInterval(a, x, x_end);
  // Pairs of groups checked lane by lane, from x on while x < stop.
  auto checked_pairs = [&](size_t stop) {
    for (; x + 2 * N <= x_end && x < stop; x += 2 * N) {
      bool in0, in1;
      const auto off0 = offsets(x, in0), off1 = offsets(x + N, in1);
      if (in0 && in1) {
        store_pair(x, off0, off1);
      } else {
        one_group(x);
        one_group(x + N);
      }
    }
  };
  checked_pairs(in.begin);
  if (x + 2 * N <= in.end && x >= in.begin) {
    auto cx = hn::Add(hn::Iota(dd, static_cast<double>(x)), half);
    const auto step = hn::Set(dd, static_cast<double>(N));
    auto offset = [&](hn::Vec<decltype(dd)> c) {
      const auto ix = hn::DemoteTo(di, hn::Floor(hn::Add(hn::Mul(m00, c), bx)));
      const auto iy = hn::DemoteTo(di, hn::Floor(hn::Add(hn::Mul(m10, c), by)));
      return hn::Add(hn::Mul(iy, row_bytes), hn::Add(ix, hn::Add(ix, ix)));
    };
    for (; x + 2 * N <= in.end; x += 2 * N) {
      const auto c1 = hn::Add(cx, step);
      store_pair(x, offset(cx), offset(c1));
      cx = hn::Add(c1, step);
    }
  }
  checked_pairs(x_end);
#endif
  for (; x < x_end; x += N) {
    if (x + N > x_end) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      break;
    }
    one_group(x);
  }
  return pending;
}

#if HWY_TARGET != HWY_SCALAR
// One group of the fixed-point linear blend (warp_rows_hwy.h's WarpRowFixedU8C3): tap (x0, y0) of
// each lane at byte offset `off`, rows `row_bytes` apart, fractions qx, qy; stores the lanes' RGB
// bytes packed at dst (3 per lane).
template <class DI>
HWY_INLINE void BlendFixedGroup(DI di, const int32_t* base, hn::Vec<DI> off, hn::Vec<DI> row_bytes, hn::Vec<DI> qx,
                                hn::Vec<DI> qy, uint8_t* dst) {
  const hn::Repartition<int16_t, DI> d16;
  const hn::Repartition<uint8_t, DI> d8;
  const size_t N = hn::Lanes(di);
  constexpr int kF = kWarpFracBits;
  const auto one = hn::Set(di, 1 << kF), rnd = hn::Set(di, 1 << (2 * kF - 1)),
             lo8 = hn::Set(di, 0x00FF00FF);
  // Bytes 0 and 3 of each 32-bit lane into its two 16-bit halves.
  alignas(16) static constexpr uint8_t kPair03[16] = {0, 0x80, 3, 0x80, 4, 0x80, 7, 0x80,
                                                      8, 0x80, 11, 0x80, 12, 0x80, 15, 0x80};
  // Bytes 0..2 of each 32-bit lane, packed: 12 bytes per 16-byte block.
  alignas(16) static constexpr uint8_t kPack3[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
  const auto pair03 = hn::LoadDup128(d8, kPair03);
  const auto pack3 = hn::LoadDup128(d8, kPack3);
  // Row 0: t00 = bytes [R0 G0 B0 R1] of the taps (x0, x0 + 1), t02 = [B0 R1 G1 B1]; row 1 alike.
  // Scalar 32-bit loads into a buffer, then vector loads: on this AMD EPYC (Zen 4) 10-30% faster
  // than four hardware gathers (vpgatherdd) at 640x480, and as fast at 1920x1080, where the misses
  // dominate (benchmarks/bench_kernels_vs_opencv.cc).
  alignas(64) int32_t offs[64];
  alignas(64) int32_t taps[4][64];
  hn::Store(off, di, offs);
  const auto rb = static_cast<size_t>(hn::GetLane(row_bytes));
  const auto* bytes = reinterpret_cast<const uint8_t*>(base);
  for (size_t k = 0; k < N; ++k) {
    const uint8_t* p = bytes + offs[k];
    std::memcpy(&taps[0][k], p, 4);
    std::memcpy(&taps[1][k], p + 2, 4);
    std::memcpy(&taps[2][k], p + rb, 4);
    std::memcpy(&taps[3][k], p + rb + 2, 4);
  }
  const auto t00 = hn::Load(di, taps[0]), t02 = hn::Load(di, taps[1]);
  const auto t10 = hn::Load(di, taps[2]), t12 = hn::Load(di, taps[3]);
  // (2^F - qx) in the low 16 bits of a lane, qx in the high 16.
  const auto wx = hn::BitCast(d16, hn::Or(hn::Sub(one, qx), hn::ShiftLeft<16>(qx)));
  auto horizontal = [&](hn::Vec<DI> pair) {  // pair: tap 0 in the low 16 bits, tap 1 high
    auto s1 = hn::Zero(di);
    const auto s0 = hn::ReorderWidenMulAccumulate(di, hn::BitCast(d16, pair), wx, hn::Zero(di), s1);
    return hn::RearrangeToOddPlusEven(s0, s1);
  };
  auto vertical = [&](hn::Vec<DI> h0, hn::Vec<DI> h1) {
    return hn::ShiftRight<2 * kF>(hn::Add(hn::Add(hn::ShiftLeft<kF>(h0), hn::Mul(hn::Sub(h1, h0), qy)), rnd));
  };
  auto pair03_of = [&](hn::Vec<DI> t) { return hn::BitCast(di, hn::TableLookupBytesOr0(hn::BitCast(d8, t), pair03)); };
  auto green_of = [&](hn::Vec<DI> t0, hn::Vec<DI> t2) {  // [G0, G1]
    return hn::And(hn::BitCast(di, hn::OddEven(hn::BitCast(d16, t2), hn::BitCast(d16, hn::ShiftRight<8>(t0)))), lo8);
  };
  const auto r = vertical(horizontal(pair03_of(t00)), horizontal(pair03_of(t10)));
  const auto g = vertical(horizontal(green_of(t00, t02)), horizontal(green_of(t10, t12)));
  const auto b = vertical(horizontal(pair03_of(t02)), horizontal(pair03_of(t12)));
  const auto rgb = hn::Or(r, hn::Or(hn::ShiftLeft<8>(g), hn::ShiftLeft<16>(b)));
  alignas(64) uint8_t packed[64];
  hn::Store(hn::TableLookupBytesOr0(hn::BitCast(d8, rgb), pack3), d8, packed);
  if (N >= 4) {
    for (size_t k = 0; k < N / 4; ++k) std::memcpy(dst + 12 * k, packed + 16 * k, 12);
  } else {
    std::memcpy(dst, packed, 3 * N);  // one partial block
  }
}
#endif

// Fixed point (warp_rows_hwy.h's WarpRowFixedU8C3).
size_t LinearFixedRowImpl(const WarpRowFixedU8C3& a) {
#if HWY_TARGET == HWY_SCALAR
  (void)a;
  return 0;
#else
  const hn::ScalableTag<int32_t> di;
  const size_t N = hn::Lanes(di);
  constexpr int kF = kWarpFracBits;
  const auto fmask = hn::Set(di, (1 << kF) - 1), three = hn::Set(di, 3);
  const auto row_bytes = hn::Set(di, static_cast<int32_t>(a.in_w * 3));
  const auto bx = hn::Set(di, a.bx), by = hn::Set(di, a.by);
  const int32_t* base = reinterpret_cast<const int32_t*>(a.in);
  const auto x_begin = static_cast<size_t>(a.x_begin), x_end = static_cast<size_t>(a.x_end);
  size_t x = x_begin;
  for (; x + N <= x_end; x += N) {
    const auto fx = hn::Add(hn::LoadU(di, a.ax + x), bx), fy = hn::Add(hn::LoadU(di, a.ay + x), by);
    const auto off = hn::Add(hn::Mul(hn::ShiftRight<kF>(fy), row_bytes), hn::Mul(hn::ShiftRight<kF>(fx), three));
    BlendFixedGroup(di, base, off, row_bytes, hn::And(fx, fmask), hn::And(fy, fmask), a.row + 3 * x);
  }
  return x - x_begin;
#endif
}

// ---- Rows from per-pixel points ----

// The scalar twin of a lane of PerspectivePointsRowImpl (the row's tail).
void PerspectivePoint(const double* m, double y, double x, bool nearest, int32_t* px, int32_t* py) {
  double w = m[6] * x + m[7] * y + m[8];
  w = w != 0 ? 1.0 / w : 0.0;
  const double sx = (m[0] * x + m[1] * y + m[2]) * w, sy = (m[3] * x + m[4] * y + m[5]) * w;
  const double limit = nearest ? double(1 << 30) : kPointLimit;
  if (!(std::fabs(sx) <= limit && std::fabs(sy) <= limit)) {
    *px = *py = kNoPoint;
  } else if (nearest) {
    *px = static_cast<int32_t>(std::floor(sx + 0.5));
    *py = static_cast<int32_t>(std::floor(sy + 0.5));
  } else {
    *px = static_cast<int32_t>(std::nearbyint(sx * (1 << kWarpFracBits)));
    *py = static_cast<int32_t>(std::nearbyint(sy * (1 << kWarpFracBits)));
  }
}

void PerspectivePointsRowImpl(const double* m, int64_t y, int64_t x_begin, int64_t n, bool nearest, int32_t* px,
                              int32_t* py) {
  const auto yd = static_cast<double>(y);
  int64_t x = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<double> dd;
  const hn::Rebind<int32_t, decltype(dd)> di;
  const auto N = static_cast<int64_t>(hn::Lanes(dd));
  const auto m0 = hn::Set(dd, m[0]), m3 = hn::Set(dd, m[3]), m6 = hn::Set(dd, m[6]);
  const auto c0 = hn::Set(dd, m[1] * yd), c1 = hn::Set(dd, m[4] * yd), c2 = hn::Set(dd, m[7] * yd);
  const auto m2 = hn::Set(dd, m[2]), m5 = hn::Set(dd, m[5]), m8 = hn::Set(dd, m[8]);
  const auto one = hn::Set(dd, 1.0), half = hn::Set(dd, 0.5), scale = hn::Set(dd, double(1 << kWarpFracBits));
  const auto limit = hn::Set(dd, nearest ? double(1 << 30) : kPointLimit);
  const auto none = hn::Set(dd, static_cast<double>(kNoPoint));  // exact, converted exactly
  for (; x + N <= n; x += N) {
    const auto xv = hn::Iota(dd, static_cast<double>(x_begin + x));
    auto w = hn::Add(hn::Add(hn::Mul(m6, xv), c2), m8);
    w = hn::IfThenElseZero(hn::Ne(w, hn::Zero(dd)), hn::Div(one, w));
    const auto sx = hn::Mul(hn::Add(hn::Add(hn::Mul(m0, xv), c0), m2), w);
    const auto sy = hn::Mul(hn::Add(hn::Add(hn::Mul(m3, xv), c1), m5), w);
    const auto valid = hn::And(hn::Le(hn::Abs(sx), limit), hn::Le(hn::Abs(sy), limit));  // NaN: false
    hn::Vec<decltype(dd)> ix, iy;
    if (nearest) {
      ix = hn::Floor(hn::Add(sx, half));
      iy = hn::Floor(hn::Add(sy, half));
    } else {
      ix = hn::Round(hn::Mul(sx, scale));
      iy = hn::Round(hn::Mul(sy, scale));
    }
    hn::StoreU(hn::DemoteTo(di, hn::IfThenElse(valid, ix, none)), di, px + x);
    hn::StoreU(hn::DemoteTo(di, hn::IfThenElse(valid, iy, none)), di, py + x);
  }
#endif
  for (; x < n; ++x) PerspectivePoint(m, yd, static_cast<double>(x_begin + x), nearest, px + x, py + x);
}

// The scalar twin of a lane of MapPointsRowImpl.
void MapPoint(float mx, float my, int32_t shift_fixed, float nearest_add, bool nearest, int32_t* px, int32_t* py) {
  const float limit = nearest ? float(1 << 22) : float(kPointLimit);
  if (!(std::fabs(mx) <= limit && std::fabs(my) <= limit)) {
    *px = *py = kNoPoint;
  } else if (nearest) {
    *px = static_cast<int32_t>(std::floor(mx + nearest_add));
    *py = static_cast<int32_t>(std::floor(my + nearest_add));
  } else {
    *px = static_cast<int32_t>(std::nearbyint(mx * float(1 << kWarpFracBits))) - shift_fixed;
    *py = static_cast<int32_t>(std::nearbyint(my * float(1 << kWarpFracBits))) - shift_fixed;
  }
}

// s = map - shift, shift 0 or 0.5. Linear: round(map 2^F) - shift 2^F (map 2^F is exact, and
// shift 2^F an integer). Nearest: floor(map + (0.5 - shift)), exact in float for |map| <= 2^22 (the
// sum is a multiple of map's ulp, and rounding it cannot cross an integer).
void MapPointsRowImpl(const float* mapx, const float* mapy, int64_t n, float shift, bool nearest, int32_t* px,
                      int32_t* py) {
  const auto shift_fixed = static_cast<int32_t>(shift * float(1 << kWarpFracBits));
  const float nearest_add = 0.5f - shift;
  int64_t x = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto limit = hn::Set(df, nearest ? float(1 << 22) : float(kPointLimit));
  const auto scale = hn::Set(df, float(1 << kWarpFracBits)), add = hn::Set(df, nearest_add);
  const auto sub = hn::Set(di, shift_fixed), none = hn::Set(di, kNoPoint);
  for (; x + N <= n; x += N) {
    auto mx = hn::LoadU(df, mapx + x), my = hn::LoadU(df, mapy + x);
    const auto valid = hn::And(hn::Le(hn::Abs(mx), limit), hn::Le(hn::Abs(my), limit));  // NaN: false
    const auto valid_i = hn::RebindMask(di, valid);
    mx = hn::IfThenElseZero(valid, mx);
    my = hn::IfThenElseZero(valid, my);
    hn::Vec<decltype(di)> ix, iy;
    if (nearest) {
      ix = hn::ConvertTo(di, hn::Floor(hn::Add(mx, add)));
      iy = hn::ConvertTo(di, hn::Floor(hn::Add(my, add)));
    } else {
      ix = hn::Sub(hn::NearestInt(hn::Mul(mx, scale)), sub);
      iy = hn::Sub(hn::NearestInt(hn::Mul(my, scale)), sub);
    }
    hn::StoreU(hn::IfThenElse(valid_i, ix, none), di, px + x);
    hn::StoreU(hn::IfThenElse(valid_i, iy, none), di, py + x);
  }
#endif
  for (; x < n; ++x) MapPoint(mapx[x], mapy[x], shift_fixed, nearest_add, nearest, px + x, py + x);
}

size_t PointGroupSizeImpl() {
#if HWY_TARGET == HWY_SCALAR
  return 1;
#else
  return hn::Lanes(hn::ScalableTag<int32_t>());
#endif
}

size_t SampleLinearPointsImpl(const PointRowU8C3& a) {
  const auto n = static_cast<size_t>(a.n);
#if HWY_TARGET == HWY_SCALAR
  for (size_t x = 0; x < n; ++x) a.fallback[x] = static_cast<int64_t>(x);
  return n;
#else
  const hn::ScalableTag<int32_t> di;
  const hn::RebindToUnsigned<decltype(di)> du;
  const size_t N = hn::Lanes(di);
  constexpr int kF = kWarpFracBits;
  const auto fmask = hn::Set(di, (1 << kF) - 1), three = hn::Set(di, 3);
  const auto row_bytes = hn::Set(di, static_cast<int32_t>(a.in_row_bytes));
  // 0 <= x0 <= w - 2 and 0 <= y0 <= h - 2, as unsigned compares (kNoPoint's x0 is negative).
  const auto x_lim = hn::Set(du, static_cast<uint32_t>(a.in_w - 1)), y_lim = hn::Set(du, static_cast<uint32_t>(a.in_h - 1));
  const int32_t* base = reinterpret_cast<const int32_t*>(a.in);
  size_t pending = 0, x = 0;
  for (; x + N <= n; x += N) {
    const auto fx = hn::LoadU(di, a.px + x), fy = hn::LoadU(di, a.py + x);
    const auto x0 = hn::ShiftRight<kF>(fx), y0 = hn::ShiftRight<kF>(fy);
    const auto inside = hn::And(hn::Lt(hn::BitCast(du, x0), x_lim), hn::Lt(hn::BitCast(du, y0), y_lim));
    if (!hn::AllTrue(du, inside)) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      continue;
    }
    const auto off = hn::Add(hn::Mul(y0, row_bytes), hn::Mul(x0, three));
    BlendFixedGroup(di, base, off, row_bytes, hn::And(fx, fmask), hn::And(fy, fmask), a.row + 3 * x);
  }
  if (x < n) a.fallback[pending++] = static_cast<int64_t>(x);
  return pending;
#endif
}

size_t SampleNearestPointsImpl(const PointRowU8C3& a) {
  const auto n = static_cast<size_t>(a.n);
#if HWY_TARGET == HWY_SCALAR
  for (size_t x = 0; x < n; ++x) a.fallback[x] = static_cast<int64_t>(x);
  return n;
#else
  const hn::ScalableTag<int32_t> di;
  const hn::RebindToUnsigned<decltype(di)> du;
  const hn::Repartition<uint8_t, decltype(di)> d8;
  const size_t N = hn::Lanes(di);
  const auto three = hn::Set(di, 3);
  const auto row_bytes = hn::Set(di, static_cast<int32_t>(a.in_row_bytes));
  const auto x_lim = hn::Set(du, static_cast<uint32_t>(a.in_w)), y_lim = hn::Set(du, static_cast<uint32_t>(a.in_h));
  // A 4-byte load at the last pixel would read past the image: that pixel is left to the caller.
  const auto last = hn::Set(di, static_cast<int32_t>((a.in_h - 1) * a.in_row_bytes + (a.in_w - 1) * 3));
  alignas(16) static constexpr uint8_t kPack3[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
  const auto pack3 = hn::LoadDup128(d8, kPack3);
  const int32_t* base = reinterpret_cast<const int32_t*>(a.in);
  alignas(64) uint8_t packed[64];
  size_t pending = 0, x = 0;
  for (; x + N <= n; x += N) {
    const auto ix = hn::LoadU(di, a.px + x), iy = hn::LoadU(di, a.py + x);
    const auto off = hn::Add(hn::Mul(iy, row_bytes), hn::Mul(ix, three));
    const auto inside = hn::And(hn::And(hn::Lt(hn::BitCast(du, ix), x_lim), hn::Lt(hn::BitCast(du, iy), y_lim)),
                                hn::RebindMask(du, hn::Lt(off, last)));
    if (!hn::AllTrue(du, inside)) {
      a.fallback[pending++] = static_cast<int64_t>(x);
      continue;
    }
    hn::Store(hn::TableLookupBytesOr0(hn::BitCast(d8, hn::GatherOffset(di, base, off)), pack3), d8, packed);
    uint8_t* dst = a.row + 3 * x;
    if (N >= 4) {
      for (size_t k = 0; k < N / 4; ++k) std::memcpy(dst + 12 * k, packed + 16 * k, 12);
    } else {
      std::memcpy(dst, packed, 3 * N);
    }
  }
  if (x < n) a.fallback[pending++] = static_cast<int64_t>(x);
  return pending;
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::warp_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::warp_detail {
HWY_EXPORT(LinearRowImpl);
HWY_EXPORT(GroupSizeImpl);
HWY_EXPORT(NearestRowImpl);
HWY_EXPORT(LinearFixedRowImpl);
size_t WarpLinearFixedRowU8C3(const WarpRowFixedU8C3& a) { return HWY_DYNAMIC_DISPATCH(LinearFixedRowImpl)(a); }
size_t WarpNearestRowU8C3(const WarpRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(NearestRowImpl)(a); }
size_t WarpLinearRowU8C3(const WarpRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(LinearRowImpl)(a); }
size_t WarpRowGroupSize() { return HWY_DYNAMIC_DISPATCH(GroupSizeImpl)(); }
HWY_EXPORT(PerspectivePointsRowImpl);
HWY_EXPORT(MapPointsRowImpl);
HWY_EXPORT(PointGroupSizeImpl);
HWY_EXPORT(SampleLinearPointsImpl);
HWY_EXPORT(SampleNearestPointsImpl);
void PerspectivePointsRow(const double* m, int64_t y, int64_t x_begin, int64_t n, bool nearest, int32_t* px,
                          int32_t* py) {
  HWY_DYNAMIC_DISPATCH(PerspectivePointsRowImpl)(m, y, x_begin, n, nearest, px, py);
}
void MapPointsRow(const float* mapx, const float* mapy, int64_t n, float shift, bool nearest, int32_t* px,
                  int32_t* py) {
  HWY_DYNAMIC_DISPATCH(MapPointsRowImpl)(mapx, mapy, n, shift, nearest, px, py);
}
size_t PointGroupSize() { return HWY_DYNAMIC_DISPATCH(PointGroupSizeImpl)(); }
size_t SampleLinearPointsU8C3(const PointRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(SampleLinearPointsImpl)(a); }
size_t SampleNearestPointsU8C3(const PointRowU8C3& a) { return HWY_DYNAMIC_DISPATCH(SampleNearestPointsImpl)(a); }
}  // namespace sluice::kernels::warp_detail
#endif
