#include "kernels/audio/window_function.h"

#include <cmath>
#include <numbers>

namespace sluice::kernels {

void HannWindow(float* out, int64_t n) {
  const double step = 2.0 * std::numbers::pi / static_cast<double>(n);
  for (int64_t t = 0; t < n; ++t) out[t] = static_cast<float>(0.5 * (1.0 - std::cos(step * (static_cast<double>(t) + 0.5))));
}

}  // namespace sluice::kernels
