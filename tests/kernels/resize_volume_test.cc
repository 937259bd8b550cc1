// ResizeVolume (kernels/resize/resize_volume.h): the depth pass against the linear filter written
// out by hand, a depth-1 volume against the image resize, mirroring in depth, and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Linear interpolation at source position (i + 0.5) * in / out - 0.5, edge voxels repeated: what
// the triangle filter gives when magnifying (taps outside the volume dropped and renormalized).
double Lerp1(const std::vector<double>& v, int i, int out) {
  const int n = static_cast<int>(v.size());
  const double s = std::clamp((i + 0.5) * n / out - 0.5, 0.0, double(n - 1));
  const int a = static_cast<int>(std::floor(s)), b = std::min(a + 1, n - 1);
  return v[size_t(a)] * (1 - (s - a)) + v[size_t(b)] * (s - a);
}

TEST(ResizeVolume, DepthPassIsLinearInterpolationWhenMagnifying) {
  const int D = 5, H = 3, W = 4, C = 2, OD = 13;
  std::mt19937 rng(1);
  std::vector<float> in(size_t(D * H * W * C));
  for (float& x : in) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  std::vector<float> out(size_t(OD * H * W * C));
  ResizeVolume(in.data(), D, H, W, C, out.data(), OD, H, W, ResizeParams{}, ResizeDepthRoi{0, double(D)});
  for (int e = 0; e < H * W * C; ++e) {
    std::vector<double> column(D);
    for (int z = 0; z < D; ++z) column[size_t(z)] = in[size_t(z * H * W * C + e)];
    for (int k = 0; k < OD; ++k) EXPECT_NEAR(out[size_t(k * H * W * C + e)], Lerp1(column, k, OD), 1e-6) << k;
  }
  // Mirrored depth (z1 < z0): the same as resizing the reversed volume.
  std::vector<float> rev(in.size()), out_m(out.size()), out_r(out.size());
  const size_t slice = size_t(H * W * C);
  for (int z = 0; z < D; ++z) std::copy_n(&in[size_t(z) * slice], slice, &rev[size_t(D - 1 - z) * slice]);
  ResizeVolume(in.data(), D, H, W, C, out_m.data(), OD, H, W, ResizeParams{}, ResizeDepthRoi{double(D), 0});
  ResizeVolume(rev.data(), D, H, W, C, out_r.data(), OD, H, W, ResizeParams{}, ResizeDepthRoi{0, double(D)});
  for (size_t e = 0; e < out_m.size(); ++e) ASSERT_NEAR(out_m[e], out_r[e], 1e-6);
}

TEST(ResizeVolume, OneSliceEqualsTheImageResize) {
  const int H = 17, W = 23, C = 3, OH = 9, OW = 31;
  std::mt19937 rng(2);
  std::vector<uint8_t> in(size_t(H * W * C));
  for (uint8_t& x : in) x = static_cast<uint8_t>(rng() & 255);
  ResizeParams p;
  p.min_filter = p.mag_filter = ResizeFilter::kCubic;
  std::vector<float> image(size_t(OH * OW * C));
  Resize(in.data(), H, W, C, image.data(), OH, OW, p);
  std::vector<float> vol(image.size());
  ResizeVolume(in.data(), 1, H, W, C, vol.data(), 1, OH, OW, p, ResizeDepthRoi{0, 1});
  for (size_t e = 0; e < vol.size(); ++e) ASSERT_FLOAT_EQ(vol[e], image[e]);
  std::vector<uint8_t> vol8(image.size());
  ResizeVolume(in.data(), 1, H, W, C, vol8.data(), 1, OH, OW, p, ResizeDepthRoi{0, 1});
  for (size_t e = 0; e < vol8.size(); ++e)
    ASSERT_EQ(vol8[e], static_cast<uint8_t>(std::clamp(std::nearbyint(image[e]), 0.0f, 255.0f)));
}

TEST(ResizeVolume, RejectsEmptyExtentsAndDegenerateRoi) {
  std::vector<float> in(8), out(8);
  EXPECT_THROW(ResizeVolume(in.data(), 0, 2, 2, 1, out.data(), 2, 2, 2, ResizeParams{}, ResizeDepthRoi{0, 1}), Error);
  EXPECT_THROW(ResizeVolume(in.data(), 2, 2, 2, 1, out.data(), 2, 2, 2, ResizeParams{}, ResizeDepthRoi{1, 1}), Error);
  EXPECT_THROW(ResizeVolume(in.data(), 2, 2, 2, 5, out.data(), 2, 2, 2, ResizeParams{}, ResizeDepthRoi{0, 2}), Error);
}

}  // namespace
}  // namespace sluice::kernels
