// Sphere and Water (kernels/warp/displacement.h) against DALI's formulas evaluated here in float32
// with an independent nearest / linear sampler (corner convention, fill outside): identical for
// nearest except at points within 1e-4 of a pixel edge, within 1 level for linear; water with zero
// amplitude is the identity with nearest. DALI 2.4's own outputs: python/tests/test_displacement_ops.py.
#include "kernels/warp/displacement.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace sluice::kernels {
namespace {

using PointFn = std::function<void(int, int, float*, float*)>;

void Check(const std::vector<uint8_t>& img, int h, int w, int c_n, const std::vector<uint8_t>& got, PointFn point,
           PerspectiveInterp interp, float fill) {
  auto at = [&](int y, int x, int c) -> double {
    return (x < 0 || y < 0 || x >= w || y >= h) ? fill : img[size_t((y * w + x) * c_n + c)];
  };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float px, py;
      point(x, y, &px, &py);
      for (int c = 0; c < c_n; ++c) {
        const double g = got[size_t((y * w + x) * c_n + c)];
        if (interp == PerspectiveInterp::kNearest) {
          if (std::fabs(px - std::round(px)) < 1e-4 || std::fabs(py - std::round(py)) < 1e-4) continue;
          ASSERT_EQ(g, at(int(std::floor(py)), int(std::floor(px)), c)) << x << "," << y;
        } else {
          const double sx = px - 0.5, sy = py - 0.5, x0 = std::floor(sx), y0 = std::floor(sy), fx = sx - x0,
                       fy = sy - y0;
          const int xi = int(x0), yi = int(y0);
          const double v = (1 - fy) * ((1 - fx) * at(yi, xi, c) + fx * at(yi, xi + 1, c)) +
                           fy * ((1 - fx) * at(yi + 1, xi, c) + fx * at(yi + 1, xi + 1, c));
          ASSERT_NEAR(g, std::clamp(v, 0.0, 255.0), 1.0) << x << "," << y;
        }
      }
    }
}

TEST(DisplacementKernels, SphereAndWaterFollowDalisFormulas) {
  std::mt19937 rng(2);
  for (auto [h, w] : {std::pair{37, 52}, std::pair{20, 9}}) {
    const int c_n = 3;
    std::vector<uint8_t> img(size_t(h * w * c_n)), out(img.size());
    for (auto& v : img) v = uint8_t(rng() & 0xff);
    const ImageGeom g = ImageGeom::HWC(h, w, c_n);
    const float mx = float(w) * 0.5f, my = float(h) * 0.5f;
    const int d = int(mx > my ? mx : my);
    PointFn sphere = [&](int x, int y, float* px, float* py) {
      const float tx = float(x) + 0.5f - mx, ty = float(y) + 0.5f - my, r = std::sqrt(tx * tx + ty * ty) / float(d);
      *px = mx + r * tx;
      *py = my + r * ty;
    };
    WaterParams wp{4.5f, -3.f, 0.2f, 0.13f, 0.3f, 1.1f};
    PointFn water = [&](int x, int y, float* px, float* py) {
      *px = float(x) + wp.ampl_x * std::sin(wp.freq_x * float(y) + wp.phase_x);
      *py = float(y) + wp.ampl_y * std::cos(wp.freq_y * float(x) + wp.phase_y);
    };
    for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear}) {
      Sphere(img.data(), out.data(), DType::kUInt8, g, interp, 9.f);
      Check(img, h, w, c_n, out, sphere, interp, 9.f);
      Water(img.data(), out.data(), DType::kUInt8, g, wp, interp, 200.f);
      Check(img, h, w, c_n, out, water, interp, 200.f);
    }
    WaterParams still{0, 0, 0.1f, 0.1f, 0, 0};
    // Zero amplitude: the identity with nearest; with linear DALI's point (x, y) is a pixel corner,
    // so the result blends each pixel with its upper-left neighbours (DALI 2.4 does the same).
    Water(img.data(), out.data(), DType::kUInt8, g, still, PerspectiveInterp::kNearest, 0);
    EXPECT_EQ(out, img);
  }
}

}  // namespace
}  // namespace sluice::kernels
