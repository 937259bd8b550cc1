// WarpPerspective (kernels/warp/warp_perspective.h) against independent references:
//   - a scalar double-precision sampler written here (projective map, OpenCV's nearest / linear /
//     cubic (a = -0.75) weights, BorderIndex per tap, fill per channel) for every interpolation and
//     border mode, HWC and CHW, uint8 and float32, a smaller output: float within 1e-3, uint8
//     within 1 (float32 vs double sums at rounding ties);
//   - the identity matrix reproduces the image exactly, and an integer translation shifts it;
//   - Invert3x3 against the product with the original;
//   - Remap with maps holding a homography's points gives WarpPerspective's bytes, and its corner
//     shift is half a pixel.
//   - the uint8 RGB fast path (sample2d_u8c3.h: vector groups inside the image, scalar pixels at
//     the border) against the float path (the same image as CHW) on images wider than several
//     vectors, row-padded input, every border mode, and remap maps with NaN, huge and outside
//     points: nearest equal, linear within 1 and on average much closer; the same bytes on every
//     SIMD target.
// OpenCV's cv2.warpPerspective and DALI 2.4's CPU operator: python/tests/test_warp_perspective.py.
#include "kernels/warp/warp_perspective.h"
#include "kernels/warp/remap.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace sluice::kernels {
namespace {

double Cubic(double x, int k) {  // OpenCV's interpolateCubic, tap k of 4
  const double A = -0.75;
  switch (k) {
    case 0: return ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
    case 1: return ((A + 2) * x - (A + 3)) * x * x + 1;
    case 2: return ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
    default: return 1 - Cubic(x, 0) - Cubic(x, 1) - Cubic(x, 2);
  }
}

// The reference on an HWC float image.
std::vector<double> Reference(const std::vector<float>& img, int h, int w, int c_n, int oh, int ow,
                              const PerspectiveParams& p) {
  std::vector<double> out(size_t(oh * ow * c_n));
  auto at = [&](int64_t y, int64_t x, int c) -> double {
    const int64_t sy = BorderIndex(y, h, p.border), sx = BorderIndex(x, w, p.border);
    if (sy < 0 || sx < 0) return p.fill.empty() ? 0.0 : p.fill[p.fill.size() == 1 ? 0 : size_t(c)];
    return img[size_t((sy * w + sx) * c_n + c)];
  };
  const double* m = p.map;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      const double q = m[6] * x + m[7] * y + m[8], wq = q != 0 ? 1 / q : 0;
      const double sx = (m[0] * x + m[1] * y + m[2]) * wq, sy = (m[3] * x + m[4] * y + m[5]) * wq;
      for (int c = 0; c < c_n; ++c) {
        double v = 0;
        if (p.interp == PerspectiveInterp::kNearest) {
          v = at(int64_t(std::floor(sy + 0.5)), int64_t(std::floor(sx + 0.5)), c);
        } else {
          const double x0 = std::floor(sx), y0 = std::floor(sy), fx = sx - x0, fy = sy - y0;
          if (p.interp == PerspectiveInterp::kLinear) {
            v = (1 - fy) * ((1 - fx) * at(int64_t(y0), int64_t(x0), c) + fx * at(int64_t(y0), int64_t(x0) + 1, c)) +
                fy * ((1 - fx) * at(int64_t(y0) + 1, int64_t(x0), c) + fx * at(int64_t(y0) + 1, int64_t(x0) + 1, c));
          } else {
            for (int i = 0; i < 4; ++i)
              for (int j = 0; j < 4; ++j)
                v += Cubic(fy, i) * Cubic(fx, j) * at(int64_t(y0) - 1 + i, int64_t(x0) - 1 + j, c);
          }
        }
        out[size_t((y * ow + x) * c_n + c)] = v;
      }
    }
  return out;
}

TEST(WarpPerspectiveKernel, MatchesScalarReferenceEveryInterpAndBorder) {
  std::mt19937 rng(4);
  const int h = 23, w = 31, c_n = 3, oh = 17, ow = 29;
  std::vector<uint8_t> u8(size_t(h * w * c_n));
  for (auto& v : u8) v = uint8_t(rng() & 0xff);
  std::vector<float> f(u8.begin(), u8.end());
  std::vector<uint8_t> planar(u8.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < c_n; ++c) planar[size_t((c * h + y) * w + x)] = u8[size_t((y * w + x) * c_n + c)];
  PerspectiveParams p;
  const double m[9] = {0.9, 0.15, -3.2, -0.1, 1.2, 2.7, 0.004, -0.003, 1.0};
  std::copy(m, m + 9, p.map);
  p.fill = {10, 200, 55};
  for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear, PerspectiveInterp::kCubic})
    for (auto border : {BorderMode::kConstant, BorderMode::kClamp, BorderMode::kReflect1001, BorderMode::kReflect101,
                        BorderMode::kWrap}) {
      p.interp = interp;
      p.border = border;
      const auto ref = Reference(f, h, w, c_n, oh, ow, p);
      std::vector<float> gf(ref.size());
      std::vector<uint8_t> g8(ref.size()), g8_chw(ref.size());
      WarpPerspective(f.data(), ImageGeom::HWC(h, w, c_n), gf.data(), ImageGeom::HWC(oh, ow, c_n), DType::kFloat32, p);
      WarpPerspective(u8.data(), ImageGeom::HWC(h, w, c_n), g8.data(), ImageGeom::HWC(oh, ow, c_n), DType::kUInt8, p);
      WarpPerspective(planar.data(), ImageGeom::CHW(c_n, h, w), g8_chw.data(), ImageGeom::CHW(c_n, oh, ow),
                      DType::kUInt8, p);
      const std::string what = "interp " + std::to_string(int(interp)) + " border " + std::to_string(int(border));
      for (size_t e = 0; e < ref.size(); ++e) {
        ASSERT_NEAR(gf[e], ref[e], 1e-3) << what << " at " << e;
        ASSERT_NEAR(g8[e], std::clamp(ref[e], 0.0, 255.0), 1.0) << what << " uint8 at " << e;
      }
      // HWC uint8 RGB takes the fixed-point path (sample2d_u8c3.h), CHW the float one: equal for
      // nearest and cubic, within 1 for linear.
      const int tol = interp == PerspectiveInterp::kLinear ? 1 : 0;
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x)
          for (int c = 0; c < c_n; ++c)
            ASSERT_NEAR(g8_chw[size_t((c * oh + y) * ow + x)], g8[size_t((y * ow + x) * c_n + c)], tol) << what << " CHW";
    }
}

TEST(WarpPerspectiveKernel, IdentityAndIntegerShift) {
  const int h = 9, w = 12, c_n = 2;
  std::vector<uint16_t> img(size_t(h * w * c_n));
  for (size_t e = 0; e < img.size(); ++e) img[e] = uint16_t(e * 37);
  std::vector<uint16_t> out(img.size());
  PerspectiveParams p;
  for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear, PerspectiveInterp::kCubic}) {
    p.interp = interp;
    WarpPerspective(img.data(), ImageGeom::HWC(h, w, c_n), out.data(), ImageGeom::HWC(h, w, c_n), DType::kUInt16, p);
    EXPECT_EQ(out, img) << int(interp);
  }
  p.map[2] = 2;  // out(x, y) = in(x + 2, y), zero beyond the right edge
  p.interp = PerspectiveInterp::kLinear;
  WarpPerspective(img.data(), ImageGeom::HWC(h, w, c_n), out.data(), ImageGeom::HWC(h, w, c_n), DType::kUInt16, p);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < c_n; ++c)
        EXPECT_EQ(out[size_t((y * w + x) * c_n + c)], x + 2 < w ? img[size_t((y * w + x + 2) * c_n + c)] : 0);
}

TEST(WarpPerspectiveKernel, Invert3x3) {
  const double m[9] = {0.9, 0.15, -3.2, -0.1, 1.2, 2.7, 0.004, -0.003, 1.0};
  double inv[9];
  ASSERT_TRUE(Invert3x3(m, inv));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += m[r * 3 + k] * inv[k * 3 + c];
      EXPECT_NEAR(s, r == c ? 1 : 0, 1e-12);
    }
  const double singular[9] = {1, 2, 3, 2, 4, 6, 0, 0, 1};
  EXPECT_FALSE(Invert3x3(singular, inv));
}

TEST(RemapKernel, MapsOfAHomographyGiveTheWarp) {
  std::mt19937 rng(8);
  const int h = 19, w = 26, c_n = 3, oh = 15, ow = 21;
  std::vector<uint8_t> img(size_t(h * w * c_n));
  for (auto& v : img) v = uint8_t(rng() & 0xff);
  PerspectiveParams p;
  const double m[9] = {0.9, 0.15, -3.2, -0.1, 1.2, 2.7, 0.004, -0.003, 1.0};
  std::copy(m, m + 9, p.map);
  std::vector<float> mx(size_t(oh * ow)), my(mx.size());
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      const double q = 1 / (m[6] * x + m[7] * y + m[8]);
      // Points exact in float, so that both see the same coordinates.
      mx[size_t(y * ow + x)] = float((m[0] * x + m[1] * y + m[2]) * q);
      my[size_t(y * ow + x)] = float((m[3] * x + m[4] * y + m[5]) * q);
    }
  for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear, PerspectiveInterp::kCubic}) {
    p.interp = interp;
    std::vector<uint8_t> remapped(size_t(oh * ow * c_n)), shifted(remapped.size()), ref(remapped.size());
    Remap(img.data(), ImageGeom::HWC(h, w, c_n), remapped.data(), ImageGeom::HWC(oh, ow, c_n), DType::kUInt8,
          mx.data(), my.data(), ow, interp, 0.f);
    // The reference sees the float points too: a warp whose map is the identity on them is not
    // available, so sample each point with a translation-only homography per pixel.
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x) {
        PerspectiveParams t;
        t.interp = interp;
        t.map[2] = mx[size_t(y * ow + x)];
        t.map[5] = my[size_t(y * ow + x)];
        WarpPerspective(img.data(), ImageGeom::HWC(h, w, c_n), &ref[size_t((y * ow + x) * c_n)],
                        ImageGeom::HWC(1, 1, c_n), DType::kUInt8, t);
      }
    EXPECT_EQ(remapped, ref) << int(interp);
    // pixel_origin "corner": the same points half a pixel up and left.
    std::vector<float> mx2(mx), my2(my);
    for (auto& v : mx2) v += 0.5f;
    for (auto& v : my2) v += 0.5f;
    Remap(img.data(), ImageGeom::HWC(h, w, c_n), shifted.data(), ImageGeom::HWC(oh, ow, c_n), DType::kUInt8,
          mx2.data(), my2.data(), ow, interp, 0.5f);
    EXPECT_EQ(shifted, remapped) << int(interp);
  }
}

// An HWC RGB image stored with `pad` extra pixels per row, and its planar copy.
struct RgbImage {
  int h, w, pad;
  std::vector<uint8_t> hwc, chw;
  ImageGeom Hwc() const { return {h, w, 3, int64_t(w + pad) * 3, 3, 1}; }
};

RgbImage SmoothImage(int h, int w, int pad, uint32_t seed) {
  std::mt19937 rng(seed);
  RgbImage im{h, w, pad, std::vector<uint8_t>(size_t(h * (w + pad) * 3), 0xEE), std::vector<uint8_t>(size_t(h * w * 3))};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) {
        // Gradients plus noise: blends with fractions that matter, and ties for rounding.
        const auto v = uint8_t((x * 7 + y * 3 + c * 50 + int(rng() % 24)) & 0xff);
        im.hwc[size_t((y * (w + pad) + x) * 3 + c)] = v;
        im.chw[size_t((c * h + y) * w + x)] = v;
      }
  return im;
}

// run() on every SIMD target Highway built and this CPU has: the same bytes on each.
template <typename Fn>
std::vector<uint8_t> OnEveryTarget(const Fn& run, const std::string& what) {
  std::vector<uint8_t> first;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::vector<uint8_t> out = run();
    if (first.empty()) first = out;
    else EXPECT_EQ(out, first) << what << " on " << hwy::TargetName(target);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets.size(), 2u);
  return first;
}

// out (HWC) against ref (CHW): nearest equal; linear within 1, and under 5% of the values off.
void ExpectFastMatchesFloat(const std::vector<uint8_t>& out, const std::vector<uint8_t>& ref, int oh, int ow,
                            bool linear, const std::string& what) {
  size_t off = 0;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int c = 0; c < 3; ++c) {
        const int a = out[size_t((y * ow + x) * 3 + c)], b = ref[size_t((c * oh + y) * ow + x)];
        ASSERT_NEAR(a, b, linear ? 1 : 0) << what << " at y " << y << " x " << x << " c " << c;
        off += a != b;
      }
  EXPECT_LT(double(off), 0.05 * oh * ow * 3) << what;
}

TEST(WarpPerspectiveKernel, RgbFastPathMatchesFloatPath) {
  const RgbImage im = SmoothImage(61, 83, 5, 11);
  const int oh = 57, ow = 131;  // several vector groups per row, and a tail
  PerspectiveParams p;
  const double m[9] = {0.7, 0.12, -9.5, -0.08, 1.15, -4.2, 0.0015, -0.001, 1.0};
  std::copy(m, m + 9, p.map);
  p.fill = {10.4f, 200, 300};  // a fraction and a saturating value, as the float path converts them
  for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear})
    for (auto border : {BorderMode::kConstant, BorderMode::kClamp, BorderMode::kReflect1001, BorderMode::kReflect101,
                        BorderMode::kWrap}) {
      p.interp = interp;
      p.border = border;
      const std::string what = "interp " + std::to_string(int(interp)) + " border " + std::to_string(int(border));
      const auto out = OnEveryTarget(
          [&] {
            std::vector<uint8_t> o(size_t(oh * ow * 3));
            WarpPerspective(im.hwc.data(), im.Hwc(), o.data(), ImageGeom::HWC(oh, ow, 3), DType::kUInt8, p);
            return o;
          },
          what);
      std::vector<uint8_t> ref(out.size());
      WarpPerspective(im.chw.data(), ImageGeom::CHW(3, im.h, im.w), ref.data(), ImageGeom::CHW(3, oh, ow),
                      DType::kUInt8, p);
      ExpectFastMatchesFloat(out, ref, oh, ow, interp == PerspectiveInterp::kLinear, what);
    }
}

TEST(RemapKernel, RgbFastPathMatchesFloatPath) {
  const RgbImage im = SmoothImage(47, 70, 3, 12);
  const int oh = 39, ow = 109, stride = ow + 7;
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-4.f, 75.f);
  std::vector<float> mx(size_t(oh * stride)), my(mx.size());
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      // Mostly a smooth map (inside groups), some random points (mixed groups) and special values.
      const size_t i = size_t(y * stride + x);
      const bool random = (x / 16 + y) % 5 == 0;
      mx[i] = random ? u(rng) : 0.55f * float(x) + 0.1f * float(y) + 0.3f;
      my[i] = random ? u(rng) : 0.05f * float(x) + 1.1f * float(y) - 0.7f;
    }
  mx[5] = std::nanf("");
  my[stride + 9] = std::numeric_limits<float>::infinity();
  mx[2 * stride + 3] = 3e6f;   // beyond the int32 points: the float path
  my[3 * stride + 40] = -2e9f;
  mx[4 * stride + 17] = 69.5f;  // the last column's centre: a weight-0 tap beyond the edge
  my[4 * stride + 17] = 46.5f;
  for (auto interp : {PerspectiveInterp::kNearest, PerspectiveInterp::kLinear})
    for (float shift : {0.f, 0.5f}) {
      const std::string what = "interp " + std::to_string(int(interp)) + " shift " + std::to_string(shift);
      const auto out = OnEveryTarget(
          [&] {
            std::vector<uint8_t> o(size_t(oh * ow * 3));
            Remap(im.hwc.data(), im.Hwc(), o.data(), ImageGeom::HWC(oh, ow, 3), DType::kUInt8, mx.data(), my.data(),
                  stride, interp, shift);
            return o;
          },
          what);
      std::vector<uint8_t> ref(out.size());
      Remap(im.chw.data(), ImageGeom::CHW(3, im.h, im.w), ref.data(), ImageGeom::CHW(3, oh, ow), DType::kUInt8,
            mx.data(), my.data(), stride, interp, shift);
      ExpectFastMatchesFloat(out, ref, oh, ow, interp == PerspectiveInterp::kLinear, what);
    }
}

}  // namespace
}  // namespace sluice::kernels
