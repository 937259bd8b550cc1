// The affine warp kernel and the affine-transform helpers: DALI's pixel-centre convention against
// a scalar reference written here, and against OpenCV's warpAffine (python3-opencv, run at test
// time) on a real photograph; DALI's rotate canvas size and matrices.
#include <gtest/gtest.h>
#include <hwy/targets.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "kernels/warp/affine_transform.h"
#include "kernels/warp/warp_affine.h"
#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

using testing::Image;

Image Noise(int h, int w, int c, uint32_t seed) {
  std::mt19937 rng(seed);
  Image img{h, w, c, std::vector<uint8_t>(size_t(h) * w * c)};
  for (auto& v : img.data) v = static_cast<uint8_t>(rng() & 0xff);
  return img;
}

// A straightforward reference: the sample position of output pixel (x, y) is M (x + 1/2, y + 1/2);
// nearest takes the pixel containing it, linear weighs the four pixel centres around it (in double).
std::vector<double> Reference(const Image& in, int out_h, int out_w, const Affine2D& m, WarpInterp interp, bool clamp,
                              double fill) {
  std::vector<double> out(size_t(out_h) * out_w * in.c);
  auto px = [&](long x, long y, int c) -> double {
    if (x < 0 || y < 0 || x >= in.w || y >= in.h) {
      if (!clamp) return fill;
      x = std::clamp<long>(x, 0, in.w - 1);
      y = std::clamp<long>(y, 0, in.h - 1);
    }
    return in.at(static_cast<int>(y), static_cast<int>(x), c);
  };
  for (int y = 0; y < out_h; ++y)
    for (int x = 0; x < out_w; ++x) {
      const double sx = m.X(x + 0.5, y + 0.5), sy = m.Y(x + 0.5, y + 0.5);
      for (int c = 0; c < in.c; ++c) {
        double v;
        if (interp == WarpInterp::kNearest) {
          v = px(static_cast<long>(std::floor(sx)), static_cast<long>(std::floor(sy)), c);
        } else {
          const double fx = sx - 0.5, fy = sy - 0.5;
          const long x0 = static_cast<long>(std::floor(fx)), y0 = static_cast<long>(std::floor(fy));
          const double ax = fx - x0, ay = fy - y0;
          v = (1 - ax) * (1 - ay) * px(x0, y0, c) + ax * (1 - ay) * px(x0 + 1, y0, c) + (1 - ax) * ay * px(x0, y0 + 1, c) +
              ax * ay * px(x0 + 1, y0 + 1, c);
        }
        out[(size_t(y) * out_w + x) * in.c + c] = v;
      }
    }
  return out;
}

std::vector<uint8_t> Warp(const Image& in, int out_h, int out_w, const Affine2D& m, WarpOptions opt) {
  std::vector<uint8_t> out(size_t(out_h) * out_w * in.c);
  WarpAffine(HwcView<const uint8_t>{in.data.data(), in.h, in.w, in.c}, HwcView<uint8_t>{out.data(), out_h, out_w, in.c},
             m, opt);
  return out;
}

Affine2D About(const Affine2D& a, const Image& img) { return AboutCenter(a, img.w / 2.0, img.h / 2.0); }

TEST(WarpAffineKernel, IdentityCopiesExactly) {
  for (int c : {1, 3, 4, 5})
    for (auto interp : {WarpInterp::kNearest, WarpInterp::kLinear}) {
      const Image img = Noise(13, 17, c, static_cast<uint32_t>(c));
      EXPECT_EQ(Warp(img, 13, 17, Affine2D{}, {interp, false, 0}), img.data) << c;
      EXPECT_EQ(Warp(img, 13, 17, Affine2D{}, {interp, true, 0}), img.data) << c;
    }
}

TEST(WarpAffineKernel, MatchesTheScalarReference) {
  const Image img = Noise(37, 53, 3, 11);
  const std::vector<Affine2D> maps = {About(Rotation(17), img), About(Rotation(-123.5), img), About(Scaling(0.7, 1.6), img),
                                      About(Shear(0.3, -0.2), img), Compose(Translation(-5.25, 3.5), About(Rotation(40), img))};
  for (const auto& m : maps)
    for (bool clamp : {false, true})
      for (auto interp : {WarpInterp::kNearest, WarpInterp::kLinear}) {
        const auto got = Warp(img, 41, 47, m, {interp, clamp, 77.0f});
        const auto ref = Reference(img, 41, 47, m, interp, clamp, 77.0);
        int worst = 0;
        for (size_t k = 0; k < got.size(); ++k)
          worst = std::max(worst, static_cast<int>(std::abs(got[k] - std::nearbyint(ref[k]))));
        EXPECT_LE(worst, interp == WarpInterp::kNearest ? 0 : 1) << "clamp " << clamp;
      }
}

// Nearest sampling skips the per-pixel bounds checks on the interval of a row whose source pixels
// are all inside: random maps (rotations, shears, mirrors, scales, shifts that put pixels on the
// image's edges), every pixel equal to the scalar code's (the single-channel warp of each plane;
// the double-precision reference above rounds m * (x, y) differently, so it can pick the
// neighbouring pixel when a coordinate falls on a pixel edge) and, away from edges, the reference's.
TEST(WarpAffineKernel, NearestRandomMapsMatchTheScalarCode) {
  const Image img = Noise(61, 97, 3, 5);
  std::vector<Image> planes;
  for (int ch = 0; ch < 3; ++ch) {
    planes.push_back(Image{img.h, img.w, 1, std::vector<uint8_t>(size_t(img.h) * img.w)});
    for (size_t k = 0; k < planes.back().data.size(); ++k) planes.back().data[k] = img.data[k * 3 + size_t(ch)];
  }
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> angle(-180, 180), scale(0.4, 2.5), shear(-0.6, 0.6), shift(-40, 40);
  size_t far_from_edges = 0;
  for (int k = 0; k < 60; ++k) {
    Affine2D m = About(Compose(Rotation(k % 4 == 0 ? 0.0 : angle(rng)),
                               Compose(Scaling(k % 5 == 0 ? -1.0 : scale(rng), scale(rng)), Shear(shear(rng), shear(rng)))),
                       img);
    m = Compose(Translation(k % 3 == 0 ? 0.5 : shift(rng), shift(rng)), m);
    for (bool clamp : {false, true}) {
      const WarpOptions opt{WarpInterp::kNearest, clamp, 3.0f};
      const auto got = Warp(img, 67, 101, m, opt);
      for (int ch = 0; ch < 3; ++ch) {
        const auto one = Warp(planes[size_t(ch)], 67, 101, m, opt);
        for (size_t i = 0; i < one.size(); ++i)
          ASSERT_EQ(got[i * 3 + size_t(ch)], one[i]) << "map " << k << " clamp " << clamp << " pixel " << i;
      }
      const auto ref = Reference(img, 67, 101, m, WarpInterp::kNearest, clamp, 3.0);
      for (int y = 0; y < 67; ++y)
        for (int x = 0; x < 101; ++x) {
          const double sx = m.X(x + 0.5, y + 0.5), sy = m.Y(x + 0.5, y + 0.5);
          if (std::abs(sx - std::round(sx)) < 1e-6 || std::abs(sy - std::round(sy)) < 1e-6) continue;
          ++far_from_edges;
          for (size_t c = 0; c < 3; ++c) {
            const size_t i = (size_t(y) * 101 + size_t(x)) * 3 + c;
            ASSERT_EQ(got[i], std::nearbyint(ref[i])) << "map " << k << " at " << x << "," << y;
          }
        }
    }
  }
  EXPECT_GT(far_from_edges, 60u * 2 * 67 * 101 * 9 / 10);
}

// Translations and horizontal shears (m00 = 1, m10 = 0) sample each row as one copy of
// consecutive source pixels when the fill applies: every pixel must equal the scalar path's (the
// uint8 -> float warp, which samples pixel by pixel), for offsets that put the row's sample points
// anywhere between pixel edges, exactly on them (where the copy is not used) and beyond the image,
// for 1, 3 and 4 channels, uint8 and float.
TEST(WarpAffineKernel, NearestTranslationsAndShearsCopyRowsAsTheScalarPathSamples) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> offset(-80, 80), shear(-0.35, 0.35);
  const double edges[] = {0.0, 0.5, -0.5, 1e-9, 0.5 - 1e-12, 3.5 + 1e-7, 17.25};
  for (int c : {1, 3, 4}) {
    const Image img = Noise(47, 59, c, 7 + c);
    const std::vector<float> fin(img.data.begin(), img.data.end());
    for (int k = 0; k < 40; ++k) {
      Affine2D m;
      m.m[0][1] = k % 2 ? shear(rng) : 0.0;
      m.m[0][2] = k < 7 ? edges[k] : offset(rng);
      m.m[1][2] = k % 3 == 0 ? 0.5 : offset(rng) * 0.5;
      const int oh = 43, ow = 61;
      const WarpOptions opt{WarpInterp::kNearest, false, 3.0f};
      std::vector<float> scalar(size_t(oh) * ow * c), f32(scalar.size());
      WarpAffine(HwcView<const uint8_t>{img.data.data(), img.h, img.w, c}, HwcView<float>{scalar.data(), oh, ow, c}, m, opt);
      const auto u8 = Warp(img, oh, ow, m, opt);
      WarpAffine(HwcView<const float>{fin.data(), img.h, img.w, c}, HwcView<float>{f32.data(), oh, ow, c}, m, opt);
      for (size_t i = 0; i < scalar.size(); ++i) {
        ASSERT_EQ(u8[i], scalar[i]) << "channels " << c << " map " << k << " value " << i;
        ASSERT_EQ(f32[i], scalar[i]) << "channels " << c << " map " << k << " value " << i;
      }
    }
  }
}

TEST(WarpAffineKernel, BorderFillAndClamp) {
  const Image img = Noise(4, 5, 2, 3);
  // Everything maps far to the right: the fill, or the last column when clamping.
  const Affine2D far = Translation(1000, 0);
  for (auto interp : {WarpInterp::kNearest, WarpInterp::kLinear}) {
    for (uint8_t v : Warp(img, 3, 3, far, {interp, false, 300.0f})) EXPECT_EQ(v, 255);  // saturated
    const auto clamped = Warp(img, 4, 2, far, {interp, true, 0});
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 2; ++x)
        for (int c = 0; c < 2; ++c) EXPECT_EQ(clamped[(size_t(y) * 2 + x) * 2 + c], img.at(y, 4, c));
  }
  // Half a pixel off the left edge, linear blends the edge pixel and the fill equally.
  const auto half = Warp(img, 4, 5, Translation(-0.5, 0), {WarpInterp::kLinear, false, 100});
  for (int y = 0; y < 4; ++y) EXPECT_NEAR(half[size_t(y) * 10], (img.at(y, 0, 0) + 100) / 2.0, 0.51);
  // An empty source gives the fill.
  std::vector<uint8_t> out(6, 1);
  WarpAffine(HwcView<const uint8_t>{nullptr, 0, 0, 1}, HwcView<uint8_t>{out.data(), 2, 3, 1}, Affine2D{}, {WarpInterp::kLinear, false, 9});
  for (uint8_t v : out) EXPECT_EQ(v, 9);
}

TEST(WarpAffineKernel, FloatTypes) {
  const Image img = Noise(9, 11, 3, 5);
  std::vector<float> fin(img.data.begin(), img.data.end());
  const Affine2D m = About(Rotation(33), img);
  const auto ref = Reference(img, 10, 12, m, WarpInterp::kLinear, false, 0.25);
  std::vector<float> fout(ref.size());
  WarpAffine(HwcView<const float>{fin.data(), 9, 11, 3}, HwcView<float>{fout.data(), 10, 12, 3}, m, {WarpInterp::kLinear, false, 0.25f});
  for (size_t k = 0; k < ref.size(); ++k) ASSERT_NEAR(fout[k], ref[k], 1e-3) << k;
  // uint8 -> float keeps fractions; the fill is converted to the input type first (0.25 -> 0).
  const auto ref0 = Reference(img, 10, 12, m, WarpInterp::kLinear, false, 0.0);
  WarpAffine(HwcView<const uint8_t>{img.data.data(), 9, 11, 3}, HwcView<float>{fout.data(), 10, 12, 3}, m, {WarpInterp::kLinear, false, 0.25f});
  for (size_t k = 0; k < ref.size(); ++k) ASSERT_NEAR(fout[k], ref0[k], 1e-3) << k;
  // float -> uint8 rounds.
  std::vector<uint8_t> u8(ref.size());
  WarpAffine(HwcView<const float>{fin.data(), 9, 11, 3}, HwcView<uint8_t>{u8.data(), 10, 12, 3}, m, {WarpInterp::kLinear, false, 0.25f});
  for (size_t k = 0; k < ref.size(); ++k) ASSERT_LE(std::abs(u8[k] - std::round(ref[k])), 1) << k;
}

TEST(WarpAffineKernel, ChannelMismatchThrows) {
  std::vector<uint8_t> a(12), b(12);
  EXPECT_THROW(WarpAffine(HwcView<const uint8_t>{a.data(), 2, 2, 3}, HwcView<uint8_t>{b.data(), 3, 2, 2}, Affine2D{}, {}), Error);
}

// ---- uint8 -> uint8 linear: fixed point ----

// What uint8 -> uint8 linear gave with float arithmetic: uint8 -> float runs the same float blend,
// rounded here as the kernel rounds (half up, saturated).
std::vector<uint8_t> WarpViaFloat(const Image& in, int out_h, int out_w, const Affine2D& m, WarpOptions opt) {
  std::vector<float> f(size_t(out_h) * out_w * in.c);
  WarpAffine(HwcView<const uint8_t>{in.data.data(), in.h, in.w, in.c}, HwcView<float>{f.data(), out_h, out_w, in.c}, m,
             opt);
  std::vector<uint8_t> out(f.size());
  for (size_t k = 0; k < f.size(); ++k)
    out[k] = !(f[k] > 0.f) ? 0 : f[k] >= 255.f ? 255 : static_cast<uint8_t>(f[k] + 0.5f);
  return out;
}

// Maps that cover the output partly, flip either axis, shrink, magnify, or keep x or y constant along
// a row (m00 = 0 or m10 = 0).
std::vector<Affine2D> PartialMaps(const Image& img) {
  std::vector<Affine2D> maps = {About(Rotation(30), img),
                                About(Rotation(-150), img),
                                About(Compose(Rotation(75), Scaling(0.3, 0.45)), img),
                                About(Compose(Rotation(-10), Scaling(3.7, 2.2)), img),
                                Compose(Translation(-7.3, 4.9), About(Shear(0.4, -0.3), img)),
                                About(Scaling(-1.0, 1.0), img),
                                About(Scaling(1.25, -0.8), img)};
  Affine2D columns;  // x = y / 2, y = x / 3: each output row samples one source column
  columns.m[0][0] = 0;
  columns.m[0][1] = 0.5;
  columns.m[1][0] = 1.0 / 3;
  columns.m[1][1] = 0;
  maps.push_back(columns);
  Affine2D rows;  // each output row samples one source row, far beyond it for some rows
  rows.m[0][0] = 0.9;
  rows.m[1][0] = 0;
  rows.m[1][1] = 1.7;
  rows.m[1][2] = -3.3;
  maps.push_back(rows);
  return maps;
}

TEST(WarpAffineKernel, Uint8LinearWithin1LsbOfFloatPathAndReference) {
  for (int c : {1, 3, 4})
    for (int size : {0, 1, 2, 3}) {  // also one row and one column: no pixel has all four taps inside
      const Image img = size == 0   ? Noise(23, 19, c, uint32_t(50 + c))
                        : size == 1 ? Noise(97, 131, c, uint32_t(40 + c))
                        : size == 2 ? Noise(1, 9, c, uint32_t(60 + c))
                                    : Noise(6, 1, c, uint32_t(70 + c));
      // Only 0 and 255: the steepest interpolant, where coordinate rounding shows most.
      const Image binary = [&] {
        Image b = img;
        for (auto& v : b.data) v = v & 1 ? 255 : 0;
        return b;
      }();
      for (const Image* in : {&img, &binary})
        for (const auto& m : PartialMaps(*in))
          for (bool clamp : {false, true}) {
            const WarpOptions opt{WarpInterp::kLinear, clamp, 201.0f};
            const int oh = in->h + 7, ow = in->w + 13;
            const auto got = Warp(*in, oh, ow, m, opt);
            const auto via_float = WarpViaFloat(*in, oh, ow, m, opt);
            const auto ref = Reference(*in, oh, ow, m, WarpInterp::kLinear, clamp, 201.0);
            int worst_float = 0, worst_ref = 0, fill_wrong = 0;
            for (size_t k = 0; k < got.size(); ++k) {
              worst_float = std::max(worst_float, std::abs(got[k] - via_float[k]));
              worst_ref = std::max(worst_ref, static_cast<int>(std::abs(got[k] - std::nearbyint(ref[k]))));
            }
            // Pixels all of whose taps are outside are exactly the fill.
            for (int y = 0; y < oh && !clamp; ++y)
              for (int x = 0; x < ow; ++x) {
                const double fx = m.X(x + 0.5, y + 0.5) - 0.5, fy = m.Y(x + 0.5, y + 0.5) - 0.5;
                if (fx > -1.01 && fy > -1.01 && fx < in->w + 0.01 && fy < in->h + 0.01) continue;
                for (int ch = 0; ch < c; ++ch) fill_wrong += got[(size_t(y) * ow + x) * c + ch] != 201;
              }
            SCOPED_TRACE(::testing::Message() << "c " << c << " " << in->h << "x" << in->w << " clamp " << clamp
                                              << " m " << m.m[0][0] << "," << m.m[0][1] << "," << m.m[0][2] << ";"
                                              << m.m[1][0] << "," << m.m[1][1] << "," << m.m[1][2]);
            EXPECT_LE(worst_float, 1);
            EXPECT_LE(worst_ref, 1);
            EXPECT_EQ(fill_wrong, 0);
          }
    }
}

TEST(WarpAffineKernel, Uint8LinearWideOutputsSpanSeveralColumnStripes) {
  // Outputs wider than several of the kernel's column stripes (1024 pixels), mostly fill on either side.
  const Image img = Noise(31, 2300, 3, 91);
  for (const auto& m : {About(Rotation(2.5), img), About(Compose(Rotation(-178), Scaling(0.45, 1.2)), img)})
    for (bool clamp : {false, true}) {
      const WarpOptions opt{WarpInterp::kLinear, clamp, 33.0f};
      const auto got = Warp(img, 37, 4500, m, opt);
      const auto ref = Reference(img, 37, 4500, m, WarpInterp::kLinear, clamp, 33.0);
      EXPECT_LE(testing::MaxAbsDiff(got, WarpViaFloat(img, 37, 4500, m, opt)), 1) << clamp;
      int worst = 0;
      for (size_t k = 0; k < got.size(); ++k) worst = std::max(worst, int(std::abs(got[k] - std::nearbyint(ref[k]))));
      EXPECT_LE(worst, 1) << clamp;
    }
}

TEST(WarpAffineKernel, Uint8SameBytesOnEverySimdTargetAndChannelCount) {
  const Image img = Noise(150, 211, 3, 77);
  const std::vector<Affine2D> maps = {About(Rotation(33), img), About(Compose(Rotation(-95), Scaling(0.6, 1.3)), img),
                                      About(Scaling(-1.0, 1.0), img)};
  std::vector<uint8_t> first;
  int64_t first_target = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    std::vector<uint8_t> all;
    for (const auto& m : maps)
      for (bool clamp : {false, true})
        for (auto interp : {WarpInterp::kLinear, WarpInterp::kNearest}) {
          const auto out = Warp(img, 171, 190, m, {interp, clamp, 9.0f});
          all.insert(all.end(), out.begin(), out.end());
        }
    if (first.empty()) {
      first = all;
      first_target = target;
    } else {
      ASSERT_EQ(all.size(), first.size());
      size_t differ = 0;
      for (size_t k = 0; k < all.size(); ++k) differ += all[k] != first[k];
      EXPECT_EQ(differ, 0u) << hwy::TargetName(target) << " vs " << hwy::TargetName(first_target);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets.size(), 2u);
  // Each channel of an RGB warp equals the single-channel warp of that plane (the scalar code).
  for (int ch = 0; ch < 3; ++ch) {
    Image plane{img.h, img.w, 1, std::vector<uint8_t>(size_t(img.h) * img.w)};
    for (size_t k = 0; k < plane.data.size(); ++k) plane.data[k] = img.data[k * 3 + size_t(ch)];
    const auto one = Warp(plane, 171, 190, maps[0], {WarpInterp::kLinear, false, 9.0f});
    const auto rgb = Warp(img, 171, 190, maps[0], {WarpInterp::kLinear, false, 9.0f});
    int mismatch = 0;
    for (size_t k = 0; k < one.size(); ++k) mismatch += one[k] != rgb[k * 3 + size_t(ch)];
    EXPECT_EQ(mismatch, 0) << ch;
  }
}

TEST(WarpAffineKernel, Uint8LinearNonFiniteOrHugeMapsKeepTheFloatPath) {
  const Image img = Noise(12, 14, 3, 5);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, 1e300}) {
    Affine2D m = About(Rotation(20), img);
    m.m[0][0] = bad;
    for (bool clamp : {false, true}) {
      const WarpOptions opt{WarpInterp::kLinear, clamp, 50.0f};
      EXPECT_EQ(Warp(img, 9, 11, m, opt), WarpViaFloat(img, 9, 11, m, opt)) << bad << " " << clamp;
    }
  }
}

// ---- OpenCV ----

std::string TempDir() {
  auto d = std::filesystem::temp_directory_path() / ("sluice_warp_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

// cv2.warpAffine of `img` with DALI's matrix `m` translated to OpenCV's integer-centre convention.
std::vector<uint8_t> OpenCvWarp(const Image& img, int out_h, int out_w, const Affine2D& m, bool nearest, int fill) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/in.raw", std::ios::binary).write(reinterpret_cast<const char*>(img.data.data()), std::streamsize(img.data.size()));
  std::ostringstream mat;
  mat.precision(17);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) mat << m.m[r][c] << (r == 1 && c == 2 ? "" : ",");
  std::ofstream(dir + "/ref.py") << R"(import sys, numpy as np, cv2
d, h, w, c, oh, ow, nearest, fill = sys.argv[1], *map(int, sys.argv[2:9])
m = np.array([float(v) for v in sys.argv[9].split(',')]).reshape(2, 3)
# DALI samples M (x + 1/2, y + 1/2) - 1/2 in OpenCV's integer-centred coordinates.
a = m.copy(); a[:, 2] = m[:, :2] @ [0.5, 0.5] + m[:, 2] - 0.5
img = np.fromfile(d + '/in.raw', np.uint8).reshape(h, w, c)
flags = (cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR) | cv2.WARP_INVERSE_MAP
out = cv2.warpAffine(img, a, (ow, oh), flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=(fill,) * 4)
out.reshape(oh, ow, c).tofile(d + '/out.raw')
)";
  std::ostringstream cmd;
  cmd << "/usr/bin/python3 " << dir << "/ref.py " << dir << " " << img.h << " " << img.w << " " << img.c << " " << out_h << " "
      << out_w << " " << nearest << " " << fill << " " << mat.str();
  if (std::system(cmd.str().c_str()) != 0) return {};
  auto out = testing::ReadFile(dir + "/out.raw");
  std::filesystem::remove_all(dir);
  return out;
}

bool HaveOpenCv() { return std::system("/usr/bin/python3 -c 'import cv2' 2>/dev/null") == 0; }

TEST(WarpAffineKernel, MatchesOpenCvOnAPhoto) {
  if (!HaveOpenCv()) GTEST_SKIP() << "python3-opencv is not installed (apt-get install python3-opencv)";
  const Image img = testing::Decode(testing::ReadImage("photo_500x375.jpg"));
  const std::vector<std::pair<const char*, Affine2D>> maps = {
      {"rotate 30", About(Rotation(30), img)},
      {"rotate -77 + shift", Compose(Translation(12.5, -7.25), About(Rotation(-77), img))},
      {"scale + shear", About(Compose(Scaling(1.3, 0.8), Shear(0.2, -0.1)), img)},
  };
  for (const auto& [what, m] : maps) {
    const auto lin = Warp(img, 360, 520, m, {WarpInterp::kLinear, false, 0});
    const auto cv_lin = OpenCvWarp(img, 360, 520, m, false, 0);
    ASSERT_EQ(cv_lin.size(), lin.size()) << what;
    EXPECT_GE(testing::Psnr(lin, cv_lin), 40.0) << what;
    EXPECT_LE(testing::MaxAbsDiff(lin, cv_lin), 8) << what;

    // Nearest: identical wherever the sample position is not within OpenCV's fixed-point step
    // (1/1024 pixel) of a pixel edge, and away from the image border.
    const auto nn = Warp(img, 360, 520, m, {WarpInterp::kNearest, false, 0});
    const auto cv_nn = OpenCvWarp(img, 360, 520, m, true, 0);
    ASSERT_EQ(cv_nn.size(), nn.size()) << what;
    int compared = 0, differ = 0;
    for (int y = 0; y < 360; ++y)
      for (int x = 0; x < 520; ++x) {
        const double sx = m.X(x + 0.5, y + 0.5), sy = m.Y(x + 0.5, y + 0.5);
        auto near_edge = [](double v) { return std::abs(v - std::round(v)) < 2.0 / 1024; };
        if (sx < 1 || sy < 1 || sx > img.w - 1 || sy > img.h - 1 || near_edge(sx) || near_edge(sy)) continue;
        ++compared;
        for (int c = 0; c < 3; ++c) differ += nn[(size_t(y) * 520 + x) * 3 + c] != cv_nn[(size_t(y) * 520 + x) * 3 + c];
      }
    EXPECT_GT(compared, 50000) << what;
    EXPECT_EQ(differ, 0) << what;
  }
}

// ---- affine transform helpers ----

void ExpectNear(const Affine2D& a, const Affine2D& b, double tol = 1e-9) {
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(a.m[r][c], b.m[r][c], tol) << r << "," << c;
}

TEST(AffineTransform, ComposeInvertAndBuilders) {
  const Affine2D a = Compose(Translation(3, -2), Compose(Rotation(30), Shear(0.5, 0.1)));
  Affine2D inv;
  ASSERT_TRUE(Invert(a, &inv));
  ExpectNear(Compose(a, inv), Affine2D{});
  ExpectNear(Compose(inv, a), Affine2D{});
  EXPECT_FALSE(Invert(Scaling(0, 1), &inv));
  // Compose(a, b) applies b first.
  const Affine2D t = Compose(Translation(10, 0), Scaling(2, 2));
  EXPECT_DOUBLE_EQ(t.X(1, 1), 12);
  // DALI's rotation2D: [[cos, -sin], [sin, cos]]; about a centre the centre stays fixed.
  const Affine2D r = Rotation(90);
  EXPECT_NEAR(r.X(1, 0), 0, 1e-12);
  EXPECT_NEAR(r.Y(1, 0), 1, 1e-12);
  const Affine2D rc = AboutCenter(Rotation(37), 5, 7);
  EXPECT_NEAR(rc.X(5, 7), 5, 1e-12);
  EXPECT_NEAR(rc.Y(5, 7), 7, 1e-12);
  // DALI's scale with centre: translation = center * (1 - scale).
  const Affine2D sc = AboutCenter(Scaling(3, 0.5), 4, 10);
  EXPECT_DOUBLE_EQ(sc.m[0][2], 4 * (1 - 3.0));
  EXPECT_DOUBLE_EQ(sc.m[1][2], 10 * (1 - 0.5));
  // crop: from box -> to box; absolute orders the bounds.
  const Affine2D cr = CropTransform({10, 20}, {30, 60}, {0, 0}, {1, 1}, false);
  EXPECT_DOUBLE_EQ(cr.X(10, 20), 0);
  EXPECT_DOUBLE_EQ(cr.Y(10, 60), 1);
  ExpectNear(CropTransform({30, 20}, {10, 60}, {0, 0}, {1, 1}, true), cr);
  // Row-major round trip.
  float v[6];
  a.ToRowMajor(v);
  ExpectNear(Affine2D::FromRowMajor(v), a, 1e-6);
}

TEST(AffineTransform, RotatedCanvasSizeFollowsDali) {
  EXPECT_EQ(RotatedCanvasSize(60, 100, 90), (std::array<int64_t, 2>{100, 60}));
  EXPECT_EQ(RotatedCanvasSize(60, 100, 180), (std::array<int64_t, 2>{60, 100}));
  EXPECT_EQ(RotatedCanvasSize(60, 100, 0), (std::array<int64_t, 2>{60, 100}));
  // 45 degrees of a 100x100 square: ceil(141.42 - 0.01) = 142, even like the input.
  EXPECT_EQ(RotatedCanvasSize(100, 100, 45), (std::array<int64_t, 2>{142, 142}));
  // 101x101: 142.84 -> 143, odd like the input.
  EXPECT_EQ(RotatedCanvasSize(101, 101, 45), (std::array<int64_t, 2>{143, 143}));
  // 10 degrees of 375x500: w = 500 cos + 375 sin = 557.5 -> 558 (even, as 500);
  // h = 375 cos + 500 sin = 456.1 -> 457 (odd, as 375).
  EXPECT_EQ(RotatedCanvasSize(375, 500, 10), (std::array<int64_t, 2>{457, 558}));
  // Parity forces +1: 30 degrees of 4x6: w = 5.196 + 2 = 7.196 -> 8 (even, as 6);
  // h = 3.464 + 3 = 6.464 -> 7, made even like 4 -> 8.
  EXPECT_EQ(RotatedCanvasSize(4, 6, 30), (std::array<int64_t, 2>{8, 8}));
}

TEST(AffineTransform, Rotate90IsCounterClockwise) {
  // Counter-clockwise by 90 degrees: out(y, x) = in(x, W - 1 - y), as numpy.rot90.
  const Image img = Noise(5, 8, 3, 9);
  const auto size = RotatedCanvasSize(5, 8, 90);
  ASSERT_EQ(size, (std::array<int64_t, 2>{8, 5}));
  const auto out = Warp(img, 8, 5, RotateInverseMap(5, 8, 8, 5, 90), {WarpInterp::kNearest, false, 0});
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(out[(size_t(y) * 5 + x) * 3 + c], img.at(x, 7 - y, c)) << y << "," << x;
  // Linear at 90 degrees samples pixel centres exactly: the same result.
  EXPECT_EQ(Warp(img, 8, 5, RotateInverseMap(5, 8, 8, 5, 90), {WarpInterp::kLinear, false, 0}), out);
}

}  // namespace
}  // namespace sluice::kernels
