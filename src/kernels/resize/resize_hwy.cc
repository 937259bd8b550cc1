// Highway (dynamic dispatch) inner loops of the separable resize. Internal to resize.cc.
//
// Horizontal pass: vectorized over output *elements* (pixel x channel), so any channel count
// works with one code path: element j of an output row reads source elements offs[j] + k*C for
// tap k (a gather from the row widened to 32-bit lanes) and multiplies by a per-element weight
// table laid out tap-major (coef[k * out_elems + j]) for contiguous loads.
// Vertical pass: vectorized along the row; each tap is one contiguous row load times a scalar.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/resize/resize_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)  // fewer targets: faster builds
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/resize/resize_hwy.h"
#include "kernels/resize/resize_horz_c3.h"
#include "kernels/tensor/saturate_cast.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::resize_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kRound = 1 << (kFixedBits - 1);

// Widens one source row (uint8, int16 or uint16) into 32-bit lanes (int32 for the fixed-point
// path, float otherwise).
template <typename TAcc, typename TIn>
HWY_INLINE void WidenRow(const TIn* HWY_RESTRICT src, size_t n, TAcc* HWY_RESTRICT dst) {
  if constexpr (std::is_same_v<TIn, TAcc>) {
    std::memcpy(dst, src, n * sizeof(TAcc));
  } else {
    const hn::ScalableTag<TAcc> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<TIn, decltype(d)> dn;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      auto v = hn::PromoteTo(di, hn::LoadU(dn, src + i));
      if constexpr (std::is_same_v<TAcc, float>) hn::StoreU(hn::ConvertTo(d, v), d, dst + i);
      else hn::StoreU(v, d, dst + i);
    }
    for (; i < n; ++i) dst[i] = TAcc(src[i]);
  }
}

template <typename TAcc, typename TOut>
HWY_INLINE void StoreOut(hn::ScalableTag<TAcc> d, hn::Vec<hn::ScalableTag<TAcc>> acc, TOut* HWY_RESTRICT p) {
  const hn::Rebind<uint8_t, decltype(d)> du8;
  if constexpr (std::is_same_v<TAcc, int32_t>) {
    hn::StoreU(hn::DemoteTo(du8, hn::ShiftRight<kFixedBits>(acc)), du8, p);
  } else if constexpr (std::is_same_v<TOut, uint8_t>) {
    hn::StoreU(hn::DemoteTo(du8, hn::NearestInt(acc)), du8, p);
  } else if constexpr (sizeof(TOut) == 2) {
    // Round half away from zero: the truncation, plus one away from zero where the dropped
    // fraction (exact in float) is at least one half; then saturate.
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<TOut, decltype(d)> dout;
    const auto t = hn::Trunc(acc);
    const auto up = hn::Ge(hn::Abs(hn::Sub(acc, t)), hn::Set(d, 0.5f));
    const auto r = hn::Add(t, hn::IfThenElseZero(up, hn::CopySign(hn::Set(d, 1.0f), acc)));
    constexpr float lo = float(std::numeric_limits<TOut>::min()), hi = float(std::numeric_limits<TOut>::max());
    const auto c = hn::Min(hn::Max(r, hn::Set(d, lo)), hn::Set(d, hi));
    hn::StoreU(hn::DemoteTo(dout, hn::ConvertTo(di, c)), dout, p);
  } else {
    hn::StoreU(acc, d, p);
  }
}

template <typename TAcc, typename TOut>
HWY_INLINE TOut ScalarOut(TAcc acc) {
  if constexpr (std::is_same_v<TAcc, int32_t>) {
    const int32_t v = acc >> kFixedBits;
    return TOut(v < 0 ? 0 : v > 255 ? 255 : v);
  } else if constexpr (std::is_same_v<TOut, uint8_t>) {
    const float r = std::nearbyint(acc);
    return TOut(r < 0.f ? 0 : r > 255.f ? 255 : int(r));
  } else if constexpr (sizeof(TOut) == 2) {
    return SaturateArithmetic<TOut, float, Rounding::kTiesAway>(acc);
  } else {
    return TOut(acc);
  }
}

template <typename TIn, typename TAcc, typename TOut>
void HorzT(const HorzArgs<TIn, TAcc, TOut>& a) {
  const hn::ScalableTag<TAcc> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const size_t ne = size_t(a.out_elems);
  const TAcc init = std::is_same_v<TAcc, int32_t> ? TAcc(kRound) : TAcc(0);
  for (int r = 0; r < a.rows; ++r) {
    if (a.row_mask && !a.row_mask[r]) continue;
    WidenRow<TAcc>(a.in + size_t(r) * a.in_pitch, size_t(a.in_elems), a.row);
    TOut* HWY_RESTRICT dst = a.out + size_t(r) * a.out_pitch;
    size_t j = 0;
    for (; j + N <= ne; j += N) {
      const auto idx = hn::LoadU(di, a.offs + j);
      auto acc = hn::Set(d, init);
      for (int k = 0; k < a.taps; ++k) {
        const auto v = hn::GatherIndex(d, a.row + k * a.channels, idx);
        acc = hn::Add(acc, hn::Mul(v, hn::LoadU(d, a.coef + size_t(k) * ne + j)));
      }
      StoreOut<TAcc>(d, acc, dst + j);
    }
    for (; j < ne; ++j) {
      TAcc acc = init;
      for (int k = 0; k < a.taps; ++k) acc += a.row[a.offs[j] + k * a.channels] * a.coef[size_t(k) * ne + j];
      dst[j] = ScalarOut<TAcc, TOut>(acc);
    }
  }
}

template <typename TIn, typename TAcc, typename TOut>
void VertT(const VertArgs<TIn, TAcc, TOut>& a) {
  const hn::ScalableTag<TAcc> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<TIn, decltype(d)> din;
  const size_t N = hn::Lanes(d);
  const size_t ne = size_t(a.elems);
  const TAcc init = std::is_same_v<TAcc, int32_t> ? TAcc(kRound) : TAcc(0);
  auto load = [&](const TIn* p) {
    if constexpr (std::is_same_v<TIn, TAcc>) {
      return hn::LoadU(d, p);
    } else {
      auto v = hn::PromoteTo(di, hn::LoadU(din, p));
      if constexpr (std::is_same_v<TAcc, float>) return hn::ConvertTo(d, v);
      else return v;
    }
  };
  for (int y = 0; y < a.out_rows; ++y) {
    const TAcc* w = a.coef + size_t(y) * size_t(a.taps);
    const TIn* base = a.in + size_t(a.start[y]) * a.in_pitch;
    // Skip the zero-weight padding taps at either end of this row's window.
    int k0 = 0, k1 = a.taps;
    while (k0 < k1 - 1 && w[k0] == 0) ++k0;
    while (k1 - 1 > k0 && w[k1 - 1] == 0) --k1;
    TOut* HWY_RESTRICT dst = a.out + size_t(y) * a.out_pitch;
    size_t j = 0;
    for (; j + 2 * N <= ne; j += 2 * N) {
      auto acc0 = hn::Set(d, init), acc1 = acc0;
      for (int k = k0; k < k1; ++k) {
        const auto wk = hn::Set(d, w[k]);
        const TIn* row = base + size_t(k) * a.in_pitch + j;
        acc0 = hn::Add(acc0, hn::Mul(load(row), wk));
        acc1 = hn::Add(acc1, hn::Mul(load(row + N), wk));
      }
      StoreOut<TAcc>(d, acc0, dst + j);
      StoreOut<TAcc>(d, acc1, dst + j + N);
    }
    for (; j + N <= ne; j += N) {
      auto acc = hn::Set(d, init);
      for (int k = k0; k < k1; ++k)
        acc = hn::Add(acc, hn::Mul(load(base + size_t(k) * a.in_pitch + j), hn::Set(d, w[k])));
      StoreOut<TAcc>(d, acc, dst + j);
    }
    for (; j < ne; ++j) {
      TAcc acc = init;
      for (int k = k0; k < k1; ++k) acc += TAcc(base[size_t(k) * a.in_pitch + j]) * w[k];
      dst[j] = ScalarOut<TAcc, TOut>(acc);
    }
  }
}


// Horizontal pass for uint8 RGB (channels == 3) in fixed point, on AVX2 and AVX3 (HorzC3Table
// describes the table). Each 128-bit block holds one output pixel: a 16-byte load of its source
// window, a byte shuffle that widens two taps of the three channels into int16 pairs, and one
// multiply-add-pairs per half of the 22-bit weight (its low 11 bits and the rest), so the sums are
// the gather path's integers exactly. Returns false where the target has no such path.
bool HorzU8C3Impl(const HorzC3Args& a) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  const hn::FixedTag<uint8_t, 32> d8;
  const hn::Half<decltype(d8)> dh8;
  const hn::Repartition<int16_t, decltype(d8)> d16;
  const hn::Repartition<int32_t, decltype(d8)> d32;
  // Taps (0, 1) and (2, 3) of a 4-tap window as int16 [c0 t0, c0 t1, c1 t0, c1 t1, c2 t0, c2 t1, 0, 0].
  alignas(32) static constexpr uint8_t kPairs[2][32] = {
      {0, 0x80, 3, 0x80, 1, 0x80, 4, 0x80, 2, 0x80, 5, 0x80, 0x80, 0x80, 0x80, 0x80,
       0, 0x80, 3, 0x80, 1, 0x80, 4, 0x80, 2, 0x80, 5, 0x80, 0x80, 0x80, 0x80, 0x80},
      {6, 0x80, 9, 0x80, 7, 0x80, 10, 0x80, 8, 0x80, 11, 0x80, 0x80, 0x80, 0x80, 0x80,
       6, 0x80, 9, 0x80, 7, 0x80, 10, 0x80, 8, 0x80, 11, 0x80, 0x80, 0x80, 0x80, 0x80}};
  // Four 4-byte pixels (RGB + pad) to 12 bytes.
  alignas(16) static constexpr uint8_t kPack12[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 0x80, 0x80, 0x80, 0x80};
  const auto pair0 = hn::Load(d8, kPairs[0]), pair1 = hn::Load(d8, kPairs[1]);
  const auto pack12 = hn::Load(dh8, kPack12);
  const auto round = hn::Set(d32, kRound);
  const int W = a.windows;
  alignas(16) uint8_t tmp[32];
  for (int r = 0; r < a.rows; ++r) {
    if (a.row_mask && !a.row_mask[r]) continue;
    const uint8_t* HWY_RESTRICT src = a.in + size_t(r) * a.in_pitch;
    uint8_t* HWY_RESTRICT dst = a.out + size_t(r) * a.out_pitch;
    for (int g = 0; g < a.groups; ++g) {
      if (!a.group_ok[g]) {
        HorzC3Scalar(a, src, dst, 8 * g, 8 * g + 8);
        continue;
      }
      hn::Vec<decltype(d32)> acc[4];
      const int16_t* coef = a.table + size_t(g) * 4 * size_t(W) * 64;
      for (int i = 0; i < 4; ++i) {
        const int x0 = 8 * g + kC3Lanes[i][0], x1 = 8 * g + kC3Lanes[i][1];
        auto lo = hn::Zero(d32), hi = hn::Zero(d32), lo1 = hn::Zero(d32), hi1 = hn::Zero(d32);
        for (int w = 0; w < W; ++w, coef += 64) {
          const auto v = hn::Combine(d8, hn::LoadU(dh8, src + 3 * size_t(a.start[x1] + 4 * w)),
                                     hn::LoadU(dh8, src + 3 * size_t(a.start[x0] + 4 * w)));
          const auto p0 = hn::BitCast(d16, hn::TableLookupBytesOr0(v, pair0));
          const auto p1 = hn::BitCast(d16, hn::TableLookupBytesOr0(v, pair1));
          lo = hn::ReorderWidenMulAccumulate(d32, p0, hn::Load(d16, coef), lo, lo1);
          hi = hn::ReorderWidenMulAccumulate(d32, p0, hn::Load(d16, coef + 16), hi, hi1);
          lo = hn::ReorderWidenMulAccumulate(d32, p1, hn::Load(d16, coef + 32), lo, lo1);
          hi = hn::ReorderWidenMulAccumulate(d32, p1, hn::Load(d16, coef + 48), hi, hi1);
        }
        lo = hn::RearrangeToOddPlusEven(lo, lo1);
        hi = hn::RearrangeToOddPlusEven(hi, hi1);
        acc[i] = hn::ShiftRight<kFixedBits>(hn::Add(hn::Add(hn::ShiftLeft<kC3LowBits>(hi), lo), round));
      }
      // Per-block packs put pixels 0-3 in a and 4-7 in b (kC3Lanes); DemoteTo saturates to 0..255.
      const auto a8 = hn::DemoteTo(dh8, hn::ReorderDemote2To(d16, acc[0], acc[1]));
      const auto b8 = hn::DemoteTo(dh8, hn::ReorderDemote2To(d16, acc[2], acc[3]));
      hn::Store(hn::TableLookupBytesOr0(a8, pack12), dh8, tmp);
      hn::Store(hn::TableLookupBytesOr0(b8, pack12), dh8, tmp + 16);
      uint8_t* d = dst + 24 * size_t(g);
      std::memcpy(d, tmp, 12);
      std::memcpy(d + 12, tmp + 16, 12);
    }
    HorzC3Scalar(a, src, dst, 8 * a.groups, a.out_w);
  }
  return true;
#else
  (void)a;
  return false;
#endif
}

void HorzU8Fixed(const HorzArgs<uint8_t, int32_t, uint8_t>& a) { HorzT(a); }
void HorzU8Float(const HorzArgs<uint8_t, float, float>& a) { HorzT(a); }
void HorzF32Float(const HorzArgs<float, float, float>& a) { HorzT(a); }
void VertU8Fixed(const VertArgs<uint8_t, int32_t, uint8_t>& a) { VertT(a); }
void VertF32ToF32(const VertArgs<float, float, float>& a) { VertT(a); }
void VertF32ToU8(const VertArgs<float, float, uint8_t>& a) { VertT(a); }
void HorzI16Float(const HorzArgs<int16_t, float, float>& a) { HorzT(a); }
void HorzU16Float(const HorzArgs<uint16_t, float, float>& a) { HorzT(a); }
void VertF32ToI16(const VertArgs<float, float, int16_t>& a) { VertT(a); }
void VertF32ToU16(const VertArgs<float, float, uint16_t>& a) { VertT(a); }

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::resize_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::resize_detail {
HWY_EXPORT(HorzU8Fixed);
HWY_EXPORT(HorzU8C3Impl);
HWY_EXPORT(HorzU8Float);
HWY_EXPORT(HorzF32Float);
HWY_EXPORT(VertU8Fixed);
HWY_EXPORT(VertF32ToF32);
HWY_EXPORT(VertF32ToU8);
HWY_EXPORT(HorzI16Float);
HWY_EXPORT(HorzU16Float);
HWY_EXPORT(VertF32ToI16);
HWY_EXPORT(VertF32ToU16);

void Horz(const HorzArgs<uint8_t, int32_t, uint8_t>& a) {
  if (a.channels == 3 && a.taps <= kC3MaxTaps) {
    thread_local HorzC3Scratch scratch;
    const HorzC3Args c3 = HorzC3Table(a, scratch);
    if (HWY_DYNAMIC_DISPATCH(HorzU8C3Impl)(c3)) return;
  }
  HWY_DYNAMIC_DISPATCH(HorzU8Fixed)(a);
}
void Horz(const HorzArgs<uint8_t, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzU8Float)(a); }
void Horz(const HorzArgs<float, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzF32Float)(a); }
void Vert(const VertArgs<uint8_t, int32_t, uint8_t>& a) { HWY_DYNAMIC_DISPATCH(VertU8Fixed)(a); }
void Vert(const VertArgs<float, float, float>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToF32)(a); }
void Vert(const VertArgs<float, float, uint8_t>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToU8)(a); }
void Horz(const HorzArgs<int16_t, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzI16Float)(a); }
void Horz(const HorzArgs<uint16_t, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzU16Float)(a); }
void Vert(const VertArgs<float, float, int16_t>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToI16)(a); }
void Vert(const VertArgs<float, float, uint16_t>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToU16)(a); }
}  // namespace sluice::kernels::resize_detail
#endif
