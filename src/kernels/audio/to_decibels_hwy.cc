// Highway (dynamic dispatch) loops of to_decibels: the ratio, its clamp and Log10 in SIMD, and the
// per-sample maximum. The tail (fewer than a vector's lanes) goes through the same vector code in a
// padded buffer, so that an element's result does not depend on where it falls.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/audio/to_decibels_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include <cstring>

#include "kernels/audio/to_decibels_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::decibel_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kMaxLanes = 64;  // the padded tail's buffer: vectors up to 2048 bits

void DecibelRowImpl(const float* in, float* out, int64_t n, float scale, float inv_reference, float min_ratio) {
  const hn::ScalableTag<float> df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  const auto vscale = hn::Set(df, scale), vinv = hn::Set(df, inv_reference), vmin = hn::Set(df, min_ratio);
  auto decibels = [&](hn::Vec<decltype(df)> x) {
    const auto ratio = hn::Mul(x, vinv);
    return hn::Mul(vscale, hn::Log10(df, hn::IfThenElse(hn::Gt(ratio, vmin), ratio, vmin)));
  };
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(decibels(hn::LoadU(df, in + i)), df, out + i);
  if (i < n && N <= static_cast<int64_t>(kMaxLanes)) {
    HWY_ALIGN float buf[kMaxLanes] = {};
    const size_t rest = static_cast<size_t>(n - i);
    std::memcpy(buf, in + i, rest * sizeof(float));
    hn::Store(decibels(hn::Load(df, buf)), df, buf);
    std::memcpy(out + i, buf, rest * sizeof(float));
  }
}

float MaxOrZeroImpl(const float* in, int64_t n) {
  const hn::ScalableTag<float> df;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  auto m = hn::Zero(df);
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto x = hn::LoadU(df, in + i);
    m = hn::IfThenElse(hn::Gt(x, m), x, m);
  }
  float best = hn::GetLane(hn::MaxOfLanes(df, m));
  for (; i < n; ++i) best = in[i] > best ? in[i] : best;
  return best;
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::decibel_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::decibel_detail {
HWY_EXPORT(DecibelRowImpl);
HWY_EXPORT(MaxOrZeroImpl);
void DecibelRow(const float* in, float* out, int64_t n, float scale, float inv_reference, float min_ratio) {
  HWY_DYNAMIC_DISPATCH(DecibelRowImpl)(in, out, n, scale, inv_reference, min_ratio);
}
float MaxOrZero(const float* in, int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxOrZeroImpl)(in, n); }
}  // namespace sluice::kernels::decibel_detail
#endif
