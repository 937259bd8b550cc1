// The Laplacian of 2-D images as DALI's `laplacian` computes it (dali/operators/image/convolution/
// laplacian*.h): the sum of the two second-order partial derivatives, each a separable filter with a
// derivative window along its own axis and a smoothing window along the other,
//   out = scale_y * (deriv_y (x) smooth_x) * in + scale_x * (smooth_y (x) deriv_x) * in,
// correlations (every window here is symmetric) with reflect-101 borders (OpenCV's
// BORDER_REFLECT_101), computed in float32; integer outputs round to nearest even and saturate.
// Windows (OpenCV's getSobelKernels, which DALI's match): smoothing of size n = binomial
// coefficients C(n-1, k); derivative of size n >= 3 = [1, -2, 1] convolved with the smoothing
// window of size n - 2. With window 3 and smoothing 3 this is cv2.Laplacian(ksize=3).
// Sums: every window is symmetric, so per element the two taps at distance d from the centre are
// added first and multiplied once by the weight at d (d = 0, 1, ...: the centre first), the scales
// folded into the vertical weights; the float result can differ from DALI's in the last bits of
// float32 (its order of summation differs), never for integer inputs with small windows (every
// partial sum is then an exact integer). Windows that are not symmetric are an error.
// Images are views (ImageGeom) with interleaved channels (HWC: stride_c == 1, stride_x == channels)
// or planes with unit x stride (CHW, HW). Types in and out: FilterKernelSupports.
// Thread-safety: reentrant; each call allocates its own scratch rows (O(window * width)).
#pragma once
#include <vector>

#include "kernels/filter/convolution.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

// The smoothing window of odd size n >= 1 (binomial coefficients) and the second-derivative
// window of odd size n >= 3.
std::vector<float> LaplacianSmoothingWindow(int n);
std::vector<float> LaplacianDerivativeWindow(int n);

// The partial derivative along y uses deriv_y (along y) and smooth_x (along x); the one along x
// uses smooth_y and deriv_x. Each window has odd length; anchors are the centres.
struct LaplacianWindows {
  std::vector<float> deriv_y, smooth_x;
  std::vector<float> smooth_y, deriv_x;
  float scale_y = 1.f, scale_x = 1.f;
};

// The windows for window sizes (wy, wx) and smoothing sizes (sy, sx) (DALI: window_size and
// smoothing_size, H first); normalized: scale_d = 2^(-s + 2 + 2) with s the sum of the two window
// sizes of partial derivative d (DALI's normalized_kernel), else the scales given.
LaplacianWindows MakeLaplacianWindows(int wy, int wx, int sy, int sx, bool normalized, float scale_y,
                                      float scale_x);

// Same-size output; `in` and `out` must not overlap.
void Laplacian2D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& geom,
                 const LaplacianWindows& w);

// Volumes (DALI's laplacian of DHWC, CDHW and DHW inputs): the sum of the three partial
// derivatives, partial a (0: D, 1: H, 2: W) taking along[a][a] (the derivative window) along axis a
// and along[a][b] (smoothing windows) along each other axis b, times scale[a]. The smoothing sizes
// are `smoothing` per axis, or, without it (nullptr), DALI's default: the partial's own window size
// along every other axis. Normalized: scale[a] = 2^(-s + 3 + 2), s the partial's three window sizes
// summed (DALI's 2^(-s + n + 2) for n = 3 axes).
struct LaplacianWindows3D {
  std::vector<float> along[3][3];
  float scale[3] = {1.f, 1.f, 1.f};
};
LaplacianWindows3D MakeLaplacianWindows3D(const int window[3], const int* smoothing, bool normalized,
                                          const float scale[3]);

// A dense volume of `depth` slices `slice_stride` elements apart, each slice of geometry `plane`
// (its H x W positions of uniform stride and its channels): DHWC, CDHW or DHW. Each partial is
// computed in float32 (W and H per slice, then D: SeparableFilter2D), the three summed in float32
// and the sum converted once, as Laplacian2D. `in` and `out` must not overlap.
void Laplacian3D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& plane, int64_t depth,
                 int64_t slice_stride, const LaplacianWindows3D& w);

}  // namespace sluice::kernels
