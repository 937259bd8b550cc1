#include "kernels/filter/gaussian_window.h"

#include <cmath>

namespace sluice::kernels {

int GaussianSigmaToWindow(float sigma) { return 2 * static_cast<int>(std::ceil(sigma * 3)) + 1; }

float GaussianWindowToSigma(int window) {
  const int radius = (window - 1) / 2;
  return static_cast<float>((radius - 1) * 0.3 + 0.8);
}

std::vector<float> GaussianWindow(int window, float sigma) {
  const int r = (window - 1) / 2;
  std::vector<float> w(static_cast<size_t>(2 * r + 1));
  const float exp_scale = 0.5f / (sigma * sigma);
  float sum = 0;
  for (int x = -r; x < 0; ++x) {
    w[static_cast<size_t>(x + r)] = std::exp(-(static_cast<float>(x * x) * exp_scale));
    sum += w[static_cast<size_t>(x + r)];
  }
  sum = sum * 2 + 1;
  const float scale = 1.f / sum;
  w[static_cast<size_t>(r)] = scale;
  for (int x = 0; x < r; ++x) {
    w[static_cast<size_t>(x)] *= scale;
    w[static_cast<size_t>(2 * r - x)] = w[static_cast<size_t>(x)];
  }
  return w;
}

}  // namespace sluice::kernels
