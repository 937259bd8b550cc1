// Highway (dynamic dispatch) row kernel for crop_mirror_normalize: de-interleave 3 channels,
// widen uint8 -> float, fused multiply-add, planar stores; mirror reverses lanes after the load.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/crop_mirror_normalize/crop_mirror_normalize_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize_hwy.h"
#include "kernels/tensor/cast.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::cmn_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void RowU8ToF32Planar3Impl(const uint8_t* HWY_RESTRICT src, bool mirror, int n, const float* a, const float* b,
                           float* HWY_RESTRICT o0, float* HWY_RESTRICT o1, float* HWY_RESTRICT o2) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const int N = int(hn::Lanes(df));
  const auto a0 = hn::Set(df, a[0]), a1 = hn::Set(df, a[1]), a2 = hn::Set(df, a[2]);
  const auto b0 = hn::Set(df, b[0]), b1 = hn::Set(df, b[1]), b2 = hn::Set(df, b[2]);
  auto widen = [&](hn::Vec<decltype(d8)> v) { return hn::ConvertTo(df, hn::PromoteTo(di, v)); };
  int x = 0;
  if (!mirror) {
    for (; x + N <= n; x += N) {
      hn::Vec<decltype(d8)> r, g, bb;
      hn::LoadInterleaved3(d8, src + 3 * x, r, g, bb);
      hn::StoreU(hn::MulAdd(widen(r), a0, b0), df, o0 + x);
      hn::StoreU(hn::MulAdd(widen(g), a1, b1), df, o1 + x);
      hn::StoreU(hn::MulAdd(widen(bb), a2, b2), df, o2 + x);
    }
    for (; x < n; ++x) {
      const uint8_t* s = src + 3 * x;
      o0[x] = float(s[0]) * a[0] + b[0];
      o1[x] = float(s[1]) * a[1] + b[1];
      o2[x] = float(s[2]) * a[2] + b[2];
    }
  } else {
    for (; x + N <= n; x += N) {
      hn::Vec<decltype(d8)> r, g, bb;
      hn::LoadInterleaved3(d8, src - 3 * (x + N - 1), r, g, bb);
      hn::StoreU(hn::Reverse(df, hn::MulAdd(widen(r), a0, b0)), df, o0 + x);
      hn::StoreU(hn::Reverse(df, hn::MulAdd(widen(g), a1, b1)), df, o1 + x);
      hn::StoreU(hn::Reverse(df, hn::MulAdd(widen(bb), a2, b2)), df, o2 + x);
    }
    for (; x < n; ++x) {
      const uint8_t* s = src - 3 * x;
      o0[x] = float(s[0]) * a[0] + b[0];
      o1[x] = float(s[1]) * a[1] + b[1];
      o2[x] = float(s[2]) * a[2] + b[2];
    }
  }
}

// HWC variant: de-interleave, normalize, re-interleave (StoreInterleaved3).
void RowU8ToF32Interleaved3Impl(const uint8_t* HWY_RESTRICT src, bool mirror, int n, const float* a,
                                const float* b, float* HWY_RESTRICT o) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const int N = int(hn::Lanes(df));
  const auto a0 = hn::Set(df, a[0]), a1 = hn::Set(df, a[1]), a2 = hn::Set(df, a[2]);
  const auto b0 = hn::Set(df, b[0]), b1 = hn::Set(df, b[1]), b2 = hn::Set(df, b[2]);
  auto widen = [&](hn::Vec<decltype(d8)> v) { return hn::ConvertTo(df, hn::PromoteTo(di, v)); };
  int x = 0;
  for (; x + N <= n; x += N) {
    hn::Vec<decltype(d8)> r, g, bb;
    hn::LoadInterleaved3(d8, mirror ? src - 3 * (x + N - 1) : src + 3 * x, r, g, bb);
    auto fr = hn::MulAdd(widen(r), a0, b0), fg = hn::MulAdd(widen(g), a1, b1), fb = hn::MulAdd(widen(bb), a2, b2);
    if (mirror) {
      fr = hn::Reverse(df, fr);
      fg = hn::Reverse(df, fg);
      fb = hn::Reverse(df, fb);
    }
    hn::StoreInterleaved3(fr, fg, fb, df, o + 3 * x);
  }
  for (; x < n; ++x) {
    const uint8_t* s = mirror ? src - 3 * x : src + 3 * x;
    for (int c = 0; c < 3; ++c) o[3 * x + c] = float(s[c]) * a[c] + b[c];
  }
}

template <typename TInt>
void ToIntRow(const float* HWY_RESTRICT in, size_t n, TInt* HWY_RESTRICT out) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<TInt, decltype(df)> dn;
  constexpr float lo = float(std::numeric_limits<TInt>::min()), hi = float(std::numeric_limits<TInt>::max());
  const auto vlo = hn::Set(df, lo), vhi = hn::Set(df, hi);
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    auto v = hn::LoadU(df, in + i);
    v = hn::IfThenElseZero(hn::Eq(v, v), v);  // NaN -> 0
    v = hn::Min(hn::Max(v, vlo), vhi);
    hn::StoreU(hn::DemoteTo(dn, hn::NearestInt(v)), dn, out + i);
  }
  for (; i < n; ++i) {
    out[i] = ConvertSaturate<TInt>(in[i]);  // the lanes' rule: NaN -> 0, round to even, saturate
  }
}

void ToHalfRow(const float* HWY_RESTRICT in, size_t n, uint16_t* HWY_RESTRICT out) {
  size_t i = 0;
#if HWY_TARGET <= HWY_AVX2  // F16C: hardware round-to-nearest-even conversion
  const hn::ScalableTag<float> df;
  const hn::Rebind<hwy::float16_t, decltype(df)> dh;
  const size_t N = hn::Lanes(df);
  for (; i + N <= n; i += N)
    hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, in + i)), dh, reinterpret_cast<hwy::float16_t*>(out + i));
#endif
  for (; i < n; ++i) out[i] = float16(in[i]).bits;
}

void ConvertFloatRowImpl(const float* in, size_t n, DType t, void* out) {
  switch (t) {
    case DType::kUInt8: return ToIntRow(in, n, static_cast<uint8_t*>(out));
    case DType::kInt8: return ToIntRow(in, n, static_cast<int8_t*>(out));
    default: return ToHalfRow(in, n, static_cast<uint16_t*>(out));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::cmn_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::cmn_detail {
HWY_EXPORT(RowU8ToF32Planar3Impl);
void RowU8ToF32Planar3(const uint8_t* src, bool mirror, int n, const float* a, const float* b, float* o0, float* o1,
                       float* o2) {
  HWY_DYNAMIC_DISPATCH(RowU8ToF32Planar3Impl)(src, mirror, n, a, b, o0, o1, o2);
}
HWY_EXPORT(RowU8ToF32Interleaved3Impl);
void RowU8ToF32Interleaved3(const uint8_t* src, bool mirror, int n, const float* a, const float* b, float* o) {
  HWY_DYNAMIC_DISPATCH(RowU8ToF32Interleaved3Impl)(src, mirror, n, a, b, o);
}
HWY_EXPORT(ConvertFloatRowImpl);
void ConvertFloatRow(const float* in, size_t n, DType t, void* out) {
  HWY_DYNAMIC_DISPATCH(ConvertFloatRowImpl)(in, n, t, out);
}
}  // namespace sluice::kernels::cmn_detail
#endif
