// Resize of DALI's 16-bit types (int16, uint16): the float path, with a 16-bit output rounded half
// away from zero and saturated (DALI's ConvertSat on the CPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_volume.h"

namespace sluice::kernels {
namespace {

// Round half away from zero, then saturate: the reference for 16-bit outputs.
template <typename T>
T RoundAwaySat(float v) {
  const double r = std::round(double(v));
  constexpr double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  return T(r < lo ? lo : r > hi ? hi : r);
}

template <typename T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(n);
  for (T& x : v) x = T(d(rng));
  return v;
}

// The 16-bit input resized to float equals the same values given as float (one arithmetic), and the
// 16-bit output is that float result rounded half away and saturated, for every filter, channel
// count, and both directions (widths past the SIMD lanes and tails).
template <typename T>
void CheckAgainstFloatPath() {
  const ResizeFilter filters[] = {ResizeFilter::kNearest, ResizeFilter::kLinear, ResizeFilter::kCubic,
                                  ResizeFilter::kLanczos3, ResizeFilter::kTriangular};
  struct Geo { int ih, iw, oh, ow; };
  const Geo geos[] = {{23, 61, 9, 37}, {7, 13, 19, 45}, {16, 40, 16, 40}};
  for (int c = 1; c <= 4; ++c)
    for (const Geo& g : geos)
      for (ResizeFilter f : filters) {
        const std::vector<T> in = Random<T>(size_t(g.ih) * g.iw * c, uint32_t(c * 131 + g.iw));
        const std::vector<float> in_f(in.begin(), in.end());
        ResizeParams p;
        p.min_filter = p.mag_filter = f;
        const size_t n = size_t(g.oh) * g.ow * c;
        std::vector<float> ref(n), got_f(n);
        std::vector<T> got(n);
        Resize(in_f.data(), g.ih, g.iw, c, ref.data(), g.oh, g.ow, p);
        Resize(in.data(), g.ih, g.iw, c, got_f.data(), g.oh, g.ow, p);
        Resize(in.data(), g.ih, g.iw, c, got.data(), g.oh, g.ow, p);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(got_f[i], ref[i]) << "float out, c=" << c << " filter " << int(f) << " at " << i;
          ASSERT_EQ(got[i], RoundAwaySat<T>(ref[i])) << "16-bit out, c=" << c << " filter " << int(f) << " at " << i;
        }
      }
}

TEST(ResizeInt16, Int16FollowsTheFloatPath) { CheckAgainstFloatPath<int16_t>(); }
TEST(ResizeInt16, Uint16FollowsTheFloatPath) { CheckAgainstFloatPath<uint16_t>(); }

TEST(ResizeInt16, HalvesRoundAwayFromZeroInTheVectorLoopAndTheTail) {
  // Linear 2x shrink without antialias: each output is the mean of two neighbours, so pairs whose
  // sum is odd give exact halves. 2 * 77 inputs: 77 outputs cover full vectors and a scalar tail.
  const int ow = 77, iw = 2 * ow;
  std::vector<int16_t> in(static_cast<size_t>(iw));
  std::vector<int16_t> expected(static_cast<size_t>(ow));
  for (int j = 0; j < ow; ++j) {
    const int a = (j % 7) * 1000 - 3000 + j, b = a + ((j % 2) ? 1 : -1) * (1 + 2 * (j % 5));  // odd difference
    in[size_t(2 * j)] = int16_t(a);
    in[size_t(2 * j + 1)] = int16_t(b);
    const double mean = (a + b) / 2.0;  // x.5 exactly
    expected[size_t(j)] = int16_t(mean < 0 ? -std::floor(-mean + 0.5) : std::floor(mean + 0.5));
  }
  ResizeParams p;
  p.antialias = false;
  std::vector<int16_t> out(static_cast<size_t>(ow));
  Resize(in.data(), 1, iw, 1, out.data(), 1, ow, p);
  EXPECT_EQ(out, expected);
  // The two signs of a tie, spelled out: 2.5 -> 3 and -2.5 -> -3 (ties to even would give 2, -2).
  const int16_t ties[4] = {2, 3, -3, -2};
  int16_t two[2];
  Resize(ties, 1, 4, 1, two, 1, 2, p);
  EXPECT_EQ(two[0], 3);
  EXPECT_EQ(two[1], -3);
}

TEST(ResizeInt16, CubicOvershootSaturates) {
  // A step between the extremes: the cubic and Lanczos lobes overshoot both ends.
  for (ResizeFilter f : {ResizeFilter::kCubic, ResizeFilter::kLanczos3}) {
    ResizeParams p;
    p.min_filter = p.mag_filter = f;
    std::vector<uint16_t> u(40);
    for (size_t i = 0; i < u.size(); ++i) u[i] = i < 20 ? 0 : 65535;
    std::vector<uint16_t> uo(123);
    Resize(u.data(), 1, 40, 1, uo.data(), 1, 123, p);
    std::vector<float> uf(123);
    const std::vector<float> u_in(u.begin(), u.end());
    Resize(u_in.data(), 1, 40, 1, uf.data(), 1, 123, p);
    int low = 0, high = 0;
    for (size_t i = 0; i < uo.size(); ++i) {
      low += uf[i] < -0.5f;
      high += uf[i] > 65535.5f;
      EXPECT_EQ(uo[i], RoundAwaySat<uint16_t>(uf[i])) << i;
    }
    EXPECT_GT(low, 0);
    EXPECT_GT(high, 0);
    std::vector<int16_t> s(40);
    for (size_t i = 0; i < s.size(); ++i) s[i] = i < 20 ? -32768 : 32767;
    std::vector<int16_t> so(123);
    Resize(s.data(), 1, 40, 1, so.data(), 1, 123, p);
    EXPECT_EQ(*std::min_element(so.begin(), so.end()), -32768);
    EXPECT_EQ(*std::max_element(so.begin(), so.end()), 32767);
  }
}

TEST(ResizeInt16, VolumesRoundOnceAtTheEnd) {
  const int d = 5, h = 6, w = 7, c = 2, od = 3, oh = 4, ow = 9;
  const std::vector<int16_t> in = Random<int16_t>(size_t(d) * h * w * c, 7);
  const std::vector<float> in_f(in.begin(), in.end());
  ResizeParams p;
  p.min_filter = p.mag_filter = ResizeFilter::kCubic;
  const ResizeDepthRoi z{0, float(d)};
  const size_t n = size_t(od) * oh * ow * c;
  std::vector<float> ref(n);
  std::vector<int16_t> got(n);
  ResizeVolume(in_f.data(), d, h, w, c, ref.data(), od, oh, ow, p, z);
  ResizeVolume(in.data(), d, h, w, c, got.data(), od, oh, ow, p, z);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], RoundAwaySat<int16_t>(ref[i])) << i;
}

}  // namespace
}  // namespace sluice::kernels
