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

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::resize_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr int kRound = 1 << (kFixedBits - 1);

// Widens one source row into 32-bit lanes (int32 for the fixed-point path, float otherwise).
template <typename TAcc, typename TIn>
HWY_INLINE void WidenRow(const TIn* HWY_RESTRICT src, size_t n, TAcc* HWY_RESTRICT dst) {
  if constexpr (std::is_same_v<TIn, TAcc>) {
    std::memcpy(dst, src, n * sizeof(TAcc));
  } else {
    const hn::ScalableTag<TAcc> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint8_t, decltype(d)> du8;
    const size_t N = hn::Lanes(d);
    size_t i = 0;
    for (; i + N <= n; i += N) {
      auto v = hn::PromoteTo(di, hn::LoadU(du8, src + i));
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

void HorzU8Fixed(const HorzArgs<uint8_t, int32_t, uint8_t>& a) { HorzT(a); }
void HorzU8Float(const HorzArgs<uint8_t, float, float>& a) { HorzT(a); }
void HorzF32Float(const HorzArgs<float, float, float>& a) { HorzT(a); }
void VertU8Fixed(const VertArgs<uint8_t, int32_t, uint8_t>& a) { VertT(a); }
void VertF32ToF32(const VertArgs<float, float, float>& a) { VertT(a); }
void VertF32ToU8(const VertArgs<float, float, uint8_t>& a) { VertT(a); }

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::resize_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::resize_detail {
HWY_EXPORT(HorzU8Fixed);
HWY_EXPORT(HorzU8Float);
HWY_EXPORT(HorzF32Float);
HWY_EXPORT(VertU8Fixed);
HWY_EXPORT(VertF32ToF32);
HWY_EXPORT(VertF32ToU8);

void Horz(const HorzArgs<uint8_t, int32_t, uint8_t>& a) { HWY_DYNAMIC_DISPATCH(HorzU8Fixed)(a); }
void Horz(const HorzArgs<uint8_t, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzU8Float)(a); }
void Horz(const HorzArgs<float, float, float>& a) { HWY_DYNAMIC_DISPATCH(HorzF32Float)(a); }
void Vert(const VertArgs<uint8_t, int32_t, uint8_t>& a) { HWY_DYNAMIC_DISPATCH(VertU8Fixed)(a); }
void Vert(const VertArgs<float, float, float>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToF32)(a); }
void Vert(const VertArgs<float, float, uint8_t>& a) { HWY_DYNAMIC_DISPATCH(VertF32ToU8)(a); }
}  // namespace sluice::kernels::resize_detail
#endif
