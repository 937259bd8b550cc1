// Highway (dynamic dispatch) uint8 -> uint8 affine map: widen to float, multiply, add (separately:
// no fused multiply-add, so the scalar table's values are reproduced), round to nearest (ties away
// from zero, as DALI's CPU), saturate, narrow.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/color/color_affine_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/tensor/round_saturate_u8-inl.h"

#include <algorithm>
#include <cmath>

#include "kernels/color/color_affine_hwy.h"
#include "kernels/tensor/cast.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::color_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
using sluice::kernels::HWY_NAMESPACE::RoundAwaySaturateToU8;
using sluice::kernels::HWY_NAMESPACE::Unfused;

void AffineU8Impl(const uint8_t* HWY_RESTRICT in, uint8_t* HWY_RESTRICT out, size_t n, float mul, float add) {
  const hn::ScalableTag<float> df;
  const hn::RebindToSigned<decltype(df)> di;
  const hn::Rebind<uint8_t, decltype(df)> d8;
  const size_t N = hn::Lanes(df);
  const auto vm = hn::Set(df, mul), va = hn::Set(df, add);
  size_t x = 0;
  for (; x + 4 * N <= n; x += 4 * N) {  // four vectors per step: independent chains
    for (size_t k = 0; k < 4; ++k) {
      const auto v = hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(d8, in + x + k * N)));
      const auto y = hn::Add(Unfused(hn::Mul(v, vm)), va);
      hn::StoreU(RoundAwaySaturateToU8(df, d8, y), d8, out + x + k * N);
    }
  }
  for (; x < n; ++x) {
    const float y = static_cast<float>(in[x]) * mul + add;
    out[x] = CastValue<uint8_t>(y);  // ties away; NaN -> 0, as the vector lanes (a NaN cast is undefined)
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::color_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::color_detail {
HWY_EXPORT(AffineU8Impl);
void AffineU8(const uint8_t* in, uint8_t* out, size_t n, float mul, float add) {
  HWY_DYNAMIC_DISPATCH(AffineU8Impl)(in, out, n, mul, add);
}
}  // namespace sluice::kernels::color_detail
#endif
