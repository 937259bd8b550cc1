// The colour kernels (kernels/color/color_adjust.h) against independent double-precision
// references of DALI's formulas: the brightness/contrast formula as DALI documents it (not the
// kernel's rearranged mul/add), the hue rotation in polar YIQ coordinates with the inverse applied
// by solving the 3x3 system, and saturation as a blend with the luma (0.299 R + 0.587 G + 0.114 B).
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "kernels/color/color_adjust.h"
#include "kernels/color/color_matrix_hwy.h"
#include "sluice/dtype.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> RandomPixels(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

// Ties away from zero, as DALI's CPU ConvertSat (and the colour kernels).
double RoundSat(double v, double lo, double hi) { return std::min(std::max(std::round(v), lo), hi); }

TEST(ColorKernels, RangesAreDalis) {
  EXPECT_EQ(ColorHalfRange(DType::kUInt8), 128);
  EXPECT_EQ(ColorHalfRange(DType::kInt16), 16384);
  EXPECT_EQ(ColorHalfRange(DType::kInt32), 1073741824.0);
  EXPECT_EQ(ColorHalfRange(DType::kFloat32), 0.5);
  EXPECT_EQ(ColorFullRange(DType::kUInt8), 255);
  EXPECT_EQ(ColorFullRange(DType::kInt16), 32767);
  EXPECT_EQ(ColorFullRange(DType::kFloat32), 1.0);
  EXPECT_FALSE(ColorKernelSupports(DType::kFloat64));
}

TEST(ColorKernels, BrightnessContrastUint8MatchesTheDocumentedFormula) {
  const auto in = RandomPixels(4096 + 5, 1);
  std::vector<uint8_t> out(in.size());
  std::vector<float> outf(in.size());
  struct P { double b, shift, c, center; };
  for (P p : {P{1, 0, 1, 128}, P{1.3, 0, 1, 128}, P{0.7, 0.1, 1.6, 128}, P{-1, 1, 1, 128}, P{1, -0.2, 0.5, 40},
              P{2.5, 0, 0, 128}}) {
    ColorAffine(in.data(), DType::kUInt8, out.data(), DType::kUInt8, in.size(),
                BrightnessContrastCoeffs(p.b, p.shift, p.c, p.center, DType::kUInt8));
    ColorAffine(in.data(), DType::kUInt8, outf.data(), DType::kFloat32, in.size(),
                BrightnessContrastCoeffs(p.b, p.shift, p.c, p.center, DType::kFloat32));
    for (size_t i = 0; i < in.size(); ++i) {
      const double x = in[i];
      const double ref = p.shift * 255 + p.b * (p.center + p.c * (x - p.center));
      ASSERT_LE(std::abs(out[i] - RoundSat(ref, 0, 255)), 1) << i << " b=" << p.b;
      // uint8 -> float: the shift is in float units (1.0), the rest in input units, as DALI.
      const double reff = p.shift * 1.0 + p.b * (p.center + p.c * (x - p.center));
      ASSERT_NEAR(outf[i], reff, 1e-3 * std::max(1.0, std::abs(reff))) << i;
    }
  }
  // Neutral arguments are the identity.
  ColorAffine(in.data(), DType::kUInt8, out.data(), DType::kUInt8, in.size(), BrightnessContrastCoeffs(1, 0, 1, 128, DType::kUInt8));
  EXPECT_EQ(out, in);
}

// uint8 -> uint8 ColorAffine of a large buffer takes the SIMD map when it reproduces the table:
// whichever path runs, every element must be the scalar formula's value, for ordinary,
// saturating, negative and non-finite coefficients.
TEST(ColorKernels, AffineUint8LargeBuffersEqualTheScalarFormula) {
  std::vector<uint8_t> in(4096 + 13);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>((i * 89 + i / 255) & 255);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> mul(-3.f, 3.f), add(-300.f, 600.f);
  std::vector<AffineCoeffs> cases = {{1.f, 0.f}, {1.1f, 3.f}, {0.5f, 0.25f}, {2.f, -255.5f}, {-1.f, 255.f},
                                     {1e-6f, 127.5f}, {std::nanf(""), 1.f}, {INFINITY, 0.f}};
  for (int k = 0; k < 200; ++k) cases.push_back({mul(rng), add(rng)});
  for (const AffineCoeffs& c : cases) {
    std::vector<uint8_t> out(in.size());
    ColorAffine(in.data(), DType::kUInt8, out.data(), DType::kUInt8, in.size(), c);
    for (size_t i = 0; i < in.size(); ++i) {
      const float y = static_cast<float>(in[i]) * c.mul + c.add;
      const uint8_t expected = std::isnan(y) ? 0 : static_cast<uint8_t>(std::clamp(std::round(double(y)), 0.0, 255.0));
      ASSERT_EQ(out[i], expected) << "mul " << c.mul << " add " << c.add << " at " << i;
    }
  }
}

TEST(ColorKernels, BrightnessContrastOtherTypes) {
  const std::vector<float> in = {0.f, 0.25f, 0.5f, 0.75f, 1.f, -0.5f, 2.f};
  std::vector<float> out(in.size());
  std::vector<int16_t> out16(in.size());
  ColorAffine(in.data(), DType::kFloat32, out.data(), DType::kFloat32, in.size(), BrightnessContrastCoeffs(1.5, 0.1, 2, 0.5, DType::kFloat32));
  for (size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(out[i], 0.1 + 1.5 * (0.5 + 2 * (in[i] - 0.5)), 1e-6);
  // float -> int16: brightness_shift is in int16 units (32767); values saturate.
  ColorAffine(in.data(), DType::kFloat32, out16.data(), DType::kInt16, in.size(), BrightnessContrastCoeffs(1000, 0.5, 1, 0.5, DType::kInt16));
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out16[i], RoundSat(0.5 * 32767 + 1000 * in[i], -32768, 32767)) << i;
  // Half-way values round away from zero (DALI's CPU ConvertSat, the same rule as kernels::Cast).
  const std::vector<float> halves = {0.5f, 1.5f, 2.5f};
  std::vector<uint8_t> r(3);
  ColorAffine(halves.data(), DType::kFloat32, r.data(), DType::kUInt8, 3, AffineCoeffs{1, 0});
  EXPECT_EQ(r, (std::vector<uint8_t>{1, 2, 3}));
  EXPECT_THROW(ColorAffine(in.data(), DType::kFloat64, out.data(), DType::kFloat32, 1, AffineCoeffs{}), Error);
}

// Independent reference of DALI's hue/saturation/value: YIQ with DALI's matrix, hue as a polar
// rotation (angle - hue), I/Q scaled, back to RGB by Cramer's rule.
constexpr double kA[3][3] = {{.299, .587, .114}, {.596, -.274, -.321}, {.211, -.523, .311}};

void SolveA(const double y[3], double x[3]) {
  auto det = [](const double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det(kA);
  for (int k = 0; k < 3; ++k) {
    double m[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] = j == k ? y[i] : kA[i][j];
    x[k] = det(m) / d;
  }
}

void ReferenceTwist(const double rgb[3], double hue, double sat, double val, double bri, double con, double half,
                    double out[3]) {
  double yiq[3];
  for (int i = 0; i < 3; ++i) yiq[i] = kA[i][0] * rgb[0] + kA[i][1] * rgb[1] + kA[i][2] * rgb[2];
  const double chroma = std::hypot(yiq[1], yiq[2]) * sat * val;
  const double angle = std::atan2(yiq[2], yiq[1]) - hue * std::numbers::pi / 180;
  const double t[3] = {yiq[0] * val, chroma * std::cos(angle), chroma * std::sin(angle)};
  SolveA(t, out);
  for (int i = 0; i < 3; ++i) out[i] = ((out[i] - half) * con + half) * bri;
}

TEST(ColorKernels, TwistUint8MatchesThePolarYiqReference) {
  const size_t pixels = 1000 + 7;  // not a multiple of any SIMD width: the scalar tail runs too
  const auto in = RandomPixels(pixels * 3, 2);
  std::vector<uint8_t> out(in.size());
  struct P { double h, s, v, b, c; };
  for (P p : {P{0, 1, 1, 1, 1}, P{30, 1, 1, 1, 1}, P{-75, 1, 1, 1, 1}, P{180, 1, 1, 1, 1}, P{0, 0, 1, 1, 1},
              P{0, 1.8, 1, 1, 1}, P{10, 0.5, 1.2, 1, 1}, P{45, 1.3, 0.9, 1.1, 0.7}, P{-20, 2, 1, 0.5, 1.8}}) {
    ColorMatrix3(in.data(), DType::kUInt8, out.data(), DType::kUInt8, pixels, ColorTwistTransform(p.h, p.s, p.v, p.b, p.c, 128));
    for (size_t i = 0; i < pixels; ++i) {
      const double rgb[3] = {double(in[3 * i]), double(in[3 * i + 1]), double(in[3 * i + 2])};
      double ref[3];
      ReferenceTwist(rgb, p.h, p.s, p.v, p.b, p.c, 128, ref);
      for (int c = 0; c < 3; ++c)
        ASSERT_LE(std::abs(out[3 * i + size_t(c)] - RoundSat(ref[c], 0, 255)), 1) << "pixel " << i << " hue " << p.h;
    }
  }
}

// uint8 -> uint8 matrices run in float32 in DALI's order (((r*m0 + g*m1) + b*m2) + offset, no fused
// multiply-add), ties rounded away from zero: the same bytes on every SIMD target and in the scalar
// tail, equal to that formula evaluated in float here.
TEST(ColorKernels, Uint8MatrixIsDalisFloatFormulaOnEveryTarget) {
  const size_t pixels = 4096 + 29;
  const auto in = RandomPixels(pixels * 3, 11);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> coef(-3.9f, 3.9f), offset(-400.f, 400.f);
  std::vector<std::pair<std::array<float, 9>, std::array<float, 3>>> cases;
  cases.push_back({{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}});
  cases.push_back({{0.5f, 0, 0, 0, 0.5f, 0, 0, 0, 0.5f}, {0, 0.25f, 0}});  // ties: 0.5 * odd, +.25
  cases.push_back({{20, 0, 0, 0, 1, 0, 0, 0, 1}, {0, -1000, 0}});
  for (int k = 0; k < 40; ++k) {
    std::array<float, 9> m;
    std::array<float, 3> o;
    for (auto& v : m) v = coef(rng);
    for (auto& v : o) v = offset(rng);
    cases.push_back({m, o});
  }
  const auto targets = hwy::SupportedAndGeneratedTargets();
  EXPECT_GE(targets.size(), 2u);
  for (const auto& [m, o] : cases) {
    std::vector<uint8_t> first;
    for (const int64_t target : targets) {
      hwy::SetSupportedTargetsForTest(target);
      std::vector<uint8_t> out(in.size());
      color_detail::MatrixRowU8(in.data(), out.data(), pixels, m.data(), o.data());
      if (first.empty()) {
        first = out;
        for (size_t i = 0; i < pixels; ++i)
          for (size_t c = 0; c < 3; ++c) {
            volatile float dot = float(in[3 * i]) * m[3 * c];
            dot = dot + float(in[3 * i + 1]) * m[3 * c + 1];
            dot = dot + float(in[3 * i + 2]) * m[3 * c + 2];
            const float y = dot + o[c];
            const float r = std::clamp(std::round(y), 0.0f, 255.0f);  // std::round: ties away
            ASSERT_EQ(out[3 * i + c], uint8_t(r)) << "pixel " << i << " channel " << c;
          }
      } else {
        EXPECT_EQ(out, first) << hwy::TargetName(target);
      }
    }
    hwy::SetSupportedTargetsForTest(0);
  }
}

TEST(ColorKernels, NeutralTwistIsTheIdentityAndGreyIsKept) {
  const auto in = RandomPixels(300, 3);
  std::vector<uint8_t> out(in.size());
  ColorMatrix3(in.data(), DType::kUInt8, out.data(), DType::kUInt8, 100, ColorTwistTransform(0, 1, 1, 1, 1, 128));
  EXPECT_EQ(out, in);
  ColorMatrix3(in.data(), DType::kUInt8, out.data(), DType::kUInt8, 100, ColorTwistTransform(360, 1, 1, 1, 1, 128));
  EXPECT_EQ(out, in);
  // Grey stays (nearly) grey under any hue and saturation: DALI's YIQ rows 2 and 3 sum to +-0.001,
  // so a grey g has a chroma of 0.0014 g, which saturation 1.7 and the inverse (rows up to ~2 in
  // I/Q) turn into at most ~1 level at g = 200, plus rounding: 2 levels.
  std::vector<uint8_t> grey = {200, 200, 200, 10, 10, 10};
  std::vector<uint8_t> g(6);
  for (double h : {37.0, 123.0, -160.0}) {
    ColorMatrix3(grey.data(), DType::kUInt8, g.data(), DType::kUInt8, 2, ColorTwistTransform(h, 1.7, 1, 1, 1, 128));
    for (int i = 0; i < 6; ++i) EXPECT_LE(std::abs(g[size_t(i)] - grey[size_t(i)]), 2) << h;
  }
}

TEST(ColorKernels, SaturationIsALumaBlend) {
  // sat * rgb + (1 - sat) * luma, within DALI's YIQ approximation (<= 0.72 levels for sat in [0, 2]).
  const size_t pixels = 513;
  const auto in = RandomPixels(pixels * 3, 4);
  std::vector<uint8_t> out(in.size());
  for (double s : {0.0, 0.4, 1.6, 2.0}) {
    ColorMatrix3(in.data(), DType::kUInt8, out.data(), DType::kUInt8, pixels, ColorTwistTransform(0, s, 1, 1, 1, 128));
    for (size_t i = 0; i < pixels; ++i) {
      const double luma = 0.299 * in[3 * i] + 0.587 * in[3 * i + 1] + 0.114 * in[3 * i + 2];
      for (size_t c = 0; c < 3; ++c) {
        const double ref = luma + s * (in[3 * i + c] - luma);
        ASSERT_LE(std::abs(out[3 * i + c] - RoundSat(ref, 0, 255)), 1) << i << " s=" << s;
      }
    }
  }
}

TEST(ColorKernels, TwistFloatAndMixedTypes) {
  const std::vector<float> in = {0.2f, 0.5f, 0.9f, 1.f, 0.f, 0.f, 0.5f, 0.5f, 0.5f};
  std::vector<float> out(in.size());
  std::vector<uint8_t> out8(in.size());
  std::vector<float16> out16(in.size());
  const double h = 70, s = 0.6, v = 1.1, b = 0.9, c = 1.4;
  ColorMatrix3(in.data(), DType::kFloat32, out.data(), DType::kFloat32, 3, ColorTwistTransform(h, s, v, b, c, 0.5));
  ColorMatrix3(in.data(), DType::kFloat32, out8.data(), DType::kUInt8, 3, ColorTwistTransform(h, s, v, b, c, 0.5));
  ColorMatrix3(in.data(), DType::kFloat32, out16.data(), DType::kFloat16, 3, ColorTwistTransform(h, s, v, b, c, 0.5));
  for (size_t p = 0; p < 3; ++p) {
    const double rgb[3] = {in[3 * p], in[3 * p + 1], in[3 * p + 2]};
    double ref[3];
    ReferenceTwist(rgb, h, s, v, b, c, 0.5, ref);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_NEAR(out[3 * p + k], ref[k], 1e-5);
      EXPECT_EQ(out8[3 * p + k], RoundSat(ref[k], 0, 255));  // float in [0, 1] to uint8: 0 or 1, as DALI
      EXPECT_NEAR(static_cast<float>(out16[3 * p + k]), ref[k], 2e-3);
    }
  }
  // uint8 -> float keeps input units (no normalization), as DALI.
  const std::vector<uint8_t> px = {10, 200, 30};
  std::vector<float> f(3);
  ColorMatrix3(px.data(), DType::kUInt8, f.data(), DType::kFloat32, 1, ColorTwistTransform(0, 1, 1, 1, 1, 128));
  EXPECT_NEAR(f[0], 10, 1e-3);
  EXPECT_NEAR(f[1], 200, 1e-3);
}

}  // namespace
}  // namespace sluice::kernels
