// DALI's Gaussian windows (dali/operators/image/convolution/gaussian_blur_params.h):
//   - only sigma given: radius = ceil(3 * sigma), window = 2 * radius + 1;
//   - only window given: sigma = ((window - 1) / 2 - 1) * 0.3 + 0.8 (OpenCV's formula, integer radius);
//   - weights exp(-x^2 / (2 sigma^2)), normalized to sum 1.
// Thread-safety: pure functions.
#pragma once
#include <vector>

namespace sluice::kernels {

int GaussianSigmaToWindow(float sigma);
float GaussianWindowToSigma(int window);
// The normalized window of `window` (odd, >= 1) taps; sigma > 0 (window 1 gives {1}).
std::vector<float> GaussianWindow(int window, float sigma);

}  // namespace sluice::kernels
