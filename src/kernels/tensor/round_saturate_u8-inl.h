// Per-target Highway helper (the "-inl.h" convention: include it after <hwy/highway.h> in a file
// compiled once per target through HWY_TARGET_INCLUDE; its guard toggles with each target).
//
// float -> uint8 as the scalar kernels convert (kernels/tensor/saturate_cast.h): round to nearest
// even, saturate to 0..255. The clamp before NearestInt keeps the conversion in int32 range
// (infinities included); the demotion saturates. NaN gives 0 on x86 (Max returns the bound);
// callers that must guarantee it on every target zero NaN lanes first.
#if defined(SLUICE_KERNELS_TENSOR_ROUND_SATURATE_U8_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SLUICE_KERNELS_TENSOR_ROUND_SATURATE_U8_INL_H_
#undef SLUICE_KERNELS_TENSOR_ROUND_SATURATE_U8_INL_H_
#else
#define SLUICE_KERNELS_TENSOR_ROUND_SATURATE_U8_INL_H_
#endif

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels {
namespace HWY_NAMESPACE {

// `d8` is a uint8 descriptor with as many lanes as `df` (hn::Rebind<uint8_t, DF>).
template <class DF, class D8>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D8> RoundSaturateToU8(DF df, D8 d8, hwy::HWY_NAMESPACE::Vec<DF> v) {
  namespace hn = hwy::HWY_NAMESPACE;
  return hn::DemoteTo(d8, hn::NearestInt(hn::Min(hn::Max(v, hn::Zero(df)), hn::Set(df, 255.0f))));
}

// v, opaque to the optimizer: a product passed through it is not fused with the add that follows
// (GCC contracts Mul + Add into a fused multiply-add on FMA targets), so vectors round each
// operation as the scalar code of DALI does.
// Only GCC needs it: Clang contracts within one source expression only (-ffp-contract=on), never
// across Highway's separate Mul and Add calls, and its inline assembly takes no vector operand of
// the emulated targets.
template <class V>
HWY_INLINE V Unfused(V v) {
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__)) && \
    HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
  asm("" : "+v"(v.raw));
#endif
  return v;
}

// The same with ties rounded away from zero (DALI's CPU ConvertSat, kernels/tensor/cast.h's
// CastValue): after the clamp v >= 0, so it is trunc(v) + (frac(v) >= 0.5), the fraction exact.
template <class DF, class D8>
HWY_INLINE hwy::HWY_NAMESPACE::Vec<D8> RoundAwaySaturateToU8(DF df, D8 d8, hwy::HWY_NAMESPACE::Vec<DF> v) {
  namespace hn = hwy::HWY_NAMESPACE;
  const auto c = hn::Min(hn::Max(v, hn::Zero(df)), hn::Set(df, 255.0f));
  const auto t = hn::Trunc(c);
  const auto r = hn::IfThenElse(hn::Ge(hn::Sub(c, t), hn::Set(df, 0.5f)), hn::Add(t, hn::Set(df, 1.0f)), t);
  return hn::DemoteTo(d8, hn::ConvertTo(hn::RebindToSigned<DF>(), r));
}

// A filter's output lanes at element `at`: as float into acc when out8 is null, else as uint8 into
// out8 with the scalar filters' conversion (kernels/filter/convolution.cc's StoreSat: NaN -> 0 on
// every target, then RoundSaturateToU8).
template <class DF, class D8>
HWY_INLINE void StoreFloatOrU8(DF df, D8 d8, hwy::HWY_NAMESPACE::Vec<DF> v, float* acc, uint8_t* out8, int64_t at) {
  namespace hn = hwy::HWY_NAMESPACE;
  if (out8) {
    hn::StoreU(RoundSaturateToU8(df, d8, hn::IfThenElseZero(hn::Eq(v, v), v)), d8, out8 + at);
  } else {
    hn::StoreU(v, df, acc + at);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels
HWY_AFTER_NAMESPACE();

#endif  // SLUICE_KERNELS_TENSOR_ROUND_SATURATE_U8_INL_H_
