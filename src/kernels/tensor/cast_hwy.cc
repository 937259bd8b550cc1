// Highway (dynamic dispatch) float -> uint8 cast: zero NaN lanes, clamp, round ties away from zero
// (RoundAwaySaturateToU8, the colour kernels' conversion), narrow. Equal to CastValue<uint8_t>.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/tensor/cast_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include "kernels/tensor/cast.h"
#include "kernels/tensor/cast_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::cast_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundAwaySaturateToU8;

void FloatToU8Impl(const float* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t N = hn::Lanes(df);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(df, in + i);
    // NaN -> 0 on every target (Max's NaN result differs between instruction sets).
    hn::StoreU(RoundAwaySaturateToU8(df, d8, hn::IfThenElseZero(hn::Eq(v, v), v)), d8, out + i);
  }
  for (; i < n; ++i) out[i] = CastValue<uint8_t>(in[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::cast_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::cast_detail {
HWY_EXPORT(FloatToU8Impl);
void FloatToU8(const float* in, uint8_t* out, size_t n) { HWY_DYNAMIC_DISPATCH(FloatToU8Impl)(in, out, n); }
}  // namespace sluice::kernels::cast_detail
#endif
