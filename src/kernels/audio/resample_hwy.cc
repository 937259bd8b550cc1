// Highway (dynamic dispatch) dot product of the resampler: one output sample of a one-channel
// signal is the dot product of its input window and its taps.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/audio/resample_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/audio/resample_hwy.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::resample_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float DotImpl(const float* x, const float* w, int64_t n) {
  const hn::ScalableTag<float> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
  int64_t k = 0;
  for (; k + 4 * N <= n; k += 4 * N) {
    a0 = hn::MulAdd(hn::LoadU(d, x + k), hn::LoadU(d, w + k), a0);
    a1 = hn::MulAdd(hn::LoadU(d, x + k + N), hn::LoadU(d, w + k + N), a1);
    a2 = hn::MulAdd(hn::LoadU(d, x + k + 2 * N), hn::LoadU(d, w + k + 2 * N), a2);
    a3 = hn::MulAdd(hn::LoadU(d, x + k + 3 * N), hn::LoadU(d, w + k + 3 * N), a3);
  }
  for (; k + N <= n; k += N) a0 = hn::MulAdd(hn::LoadU(d, x + k), hn::LoadU(d, w + k), a0);
  float tail = 0.f;
  for (; k < n; ++k) tail += x[k] * w[k];
  return hn::GetLane(hn::SumOfLanes(d, hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)))) + tail;
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::resample_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::resample_detail {
HWY_EXPORT(DotImpl);
float Dot(const float* x, const float* w, int64_t n) { return HWY_DYNAMIC_DISPATCH(DotImpl)(x, w, n); }
}  // namespace sluice::kernels::resample_detail
#endif
