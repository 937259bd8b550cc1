#include "kernels/warp/displacement.h"

#include <cmath>

#include "kernels/warp/sample2d.h"

namespace sluice::kernels {

// The sampler works in OpenCV's centre convention: DALI's corner point p is p - 0.5 there (nearest:
// floor(p - 0.5 + 0.5) = floor(p), exact in double).
void Sphere(const void* in, void* out, DType type, const ImageGeom& g, PerspectiveInterp interp, float fill) {
  const float mid_x = float(g.width) * 0.5f, mid_y = float(g.height) * 0.5f;
  const int d = static_cast<int>(mid_x > mid_y ? mid_x : mid_y);
  warp_detail::SampleImage(in, g, out, g, type, interp, BorderMode::kConstant, std::vector<float>{fill},
                           [=](int64_t x, int64_t y, double* sx, double* sy) {
                             const float tx = float(x) + 0.5f - mid_x, ty = float(y) + 0.5f - mid_y;
                             const float rad = std::sqrt(tx * tx + ty * ty) / float(d);
                             *sx = double(mid_x + rad * tx) - 0.5;
                             *sy = double(mid_y + rad * ty) - 0.5;
                           });
}

void Water(const void* in, void* out, DType type, const ImageGeom& g, const WaterParams& w, PerspectiveInterp interp,
           float fill) {
  warp_detail::SampleImage(in, g, out, g, type, interp, BorderMode::kConstant, std::vector<float>{fill},
                           [=](int64_t x, int64_t y, double* sx, double* sy) {
                             const float fx = float(x), fy = float(y);
                             *sx = double(fx + w.ampl_x * std::sin(w.freq_x * fy + w.phase_x)) - 0.5;
                             *sy = double(fy + w.ampl_y * std::cos(w.freq_y * fx + w.phase_y)) - 0.5;
                           });
}

}  // namespace sluice::kernels
