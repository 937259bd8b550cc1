#include "kernels/audio/to_decibels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sluice::kernels {

float DecibelMinRatio(float multiplier, float cutoff_db) {
  const float r = std::pow(10.0f, cutoff_db / multiplier);
  return r > 0.0f ? r : std::numeric_limits<float>::denorm_min();
}

void ToDecibels(const float* in, float* out, int64_t n, const ToDecibelsArgs& args) {
  const float min_ratio = DecibelMinRatio(args.multiplier, args.cutoff_db);
  float reference = args.reference;
  if (args.reference_max) {
    reference = 0.0f;
    for (int64_t i = 0; i < n; ++i) reference = std::max(reference, in[i]);
  }
  if (reference == 0.0f) {
    std::fill(out, out + n, args.multiplier * std::log10(min_ratio));
    return;
  }
  const float inv_reference = 1.0f / reference;
  for (int64_t i = 0; i < n; ++i) out[i] = args.multiplier * std::log10(std::max(min_ratio, in[i] * inv_reference));
}

}  // namespace sluice::kernels
