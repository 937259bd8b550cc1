#include "kernels/audio/to_decibels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/audio/to_decibels_hwy.h"

namespace sluice::kernels {

float DecibelMinRatio(float multiplier, float cutoff_db) {
  const float r = std::pow(10.0f, cutoff_db / multiplier);
  return r > 0.0f ? r : std::numeric_limits<float>::denorm_min();
}

void ToDecibels(const float* in, float* out, int64_t n, const ToDecibelsArgs& args) {
  const float min_ratio = DecibelMinRatio(args.multiplier, args.cutoff_db);
  const float reference = args.reference_max ? decibel_detail::MaxOrZero(in, n) : args.reference;
  if (reference == 0.0f) {
    std::fill(out, out + n, args.multiplier * std::log10(min_ratio));
    return;
  }
  decibel_detail::DecibelRow(in, out, n, args.multiplier, 1.0f / reference, min_ratio);
}

}  // namespace sluice::kernels
