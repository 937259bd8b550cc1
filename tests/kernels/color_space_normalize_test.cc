// Kernels of color_space_conversion, equalize, lookup_table and normalize against independent
// references: DALI's documented formulas evaluated in double, a direct histogram-equalization
// implementation, DALI's documented lookup_table example and a direct mean/variance computation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/color/color_space.h"
#include "kernels/color/equalize.h"
#include "kernels/color/lookup_table.h"
#include "kernels/normalize/normalize.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> Noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng() & 0xff);
  return v;
}

int U8(double v) { return static_cast<int>(std::clamp(std::nearbyint(v), 0.0, 255.0)); }

// ITU-R BT.601 studio range from the standard's definition (Kr = 0.299, Kb = 0.114; Y scaled to
// 219 levels from 16, chroma to 224 levels around 128), not from DALI's rounded constants.
void YCbCrRef(double r, double g, double b, double out[3]) {
  const double y = 0.299 * r + 0.587 * g + 0.114 * b;
  out[0] = 16 + 219.0 / 255 * y;
  out[1] = 128 + 224.0 / 255 * (b - y) / 1.772;
  out[2] = 128 + 224.0 / 255 * (r - y) / 1.402;
}

TEST(ColorSpaceKernel, RgbToYCbCrMatchesBt601WithinOneLevel) {
  const auto img = Noise(3 * 4096, 1);
  std::vector<uint8_t> out(img.size());
  ConvertColorSpace(img.data(), ColorSpace::kRGB, out.data(), ColorSpace::kYCbCr, DType::kUInt8, 4096);
  for (size_t p = 0; p < 4096; ++p) {
    double ref[3];
    YCbCrRef(img[3 * p], img[3 * p + 1], img[3 * p + 2], ref);
    for (int c = 0; c < 3; ++c) ASSERT_LE(std::abs(out[3 * p + c] - U8(ref[c])), 1) << p << " " << c;
  }
  // Black, white and grey: the standard's fixed points.
  const uint8_t bw[9] = {0, 0, 0, 255, 255, 255, 128, 128, 128};
  uint8_t y[9];
  ConvertColorSpace(bw, ColorSpace::kRGB, y, ColorSpace::kYCbCr, DType::kUInt8, 3);
  EXPECT_EQ(std::vector<int>(y, y + 9), (std::vector<int>{16, 128, 128, 235, 128, 128, 126, 128, 128}));
  // BGR input is the same pixel read backwards.
  std::vector<uint8_t> bgr(img.size()), out2(img.size());
  for (size_t p = 0; p < 4096; ++p)
    for (int c = 0; c < 3; ++c) bgr[3 * p + c] = img[3 * p + 2 - c];
  ConvertColorSpace(bgr.data(), ColorSpace::kBGR, out2.data(), ColorSpace::kYCbCr, DType::kUInt8, 4096);
  EXPECT_EQ(out, out2);
}

TEST(ColorSpaceKernel, YCbCrRoundTripAndInverse) {
  const auto img = Noise(3 * 4096, 2);
  std::vector<uint8_t> ycc(img.size()), back(img.size());
  ConvertColorSpace(img.data(), ColorSpace::kRGB, ycc.data(), ColorSpace::kYCbCr, DType::kUInt8, 4096);
  ConvertColorSpace(ycc.data(), ColorSpace::kYCbCr, back.data(), ColorSpace::kRGB, DType::kUInt8, 4096);
  for (size_t k = 0; k < img.size(); ++k) ASSERT_LE(std::abs(img[k] - back[k]), 3) << k;
  // The inverse against the standard's inverse, in double, on arbitrary YCbCr triples.
  const auto in = Noise(3 * 4096, 3);
  std::vector<uint8_t> rgb(in.size());
  ConvertColorSpace(in.data(), ColorSpace::kYCbCr, rgb.data(), ColorSpace::kRGB, DType::kUInt8, 4096);
  for (size_t p = 0; p < 4096; ++p) {
    const double y = (in[3 * p] - 16) * 255.0 / 219, cb = (in[3 * p + 1] - 128) * 255.0 / 224,
                 cr = (in[3 * p + 2] - 128) * 255.0 / 224;
    const double r = y + 1.402 * cr, b = y + 1.772 * cb, g = (y - 0.299 * r - 0.114 * b) / 0.587;
    ASSERT_LE(std::abs(rgb[3 * p] - U8(r)), 1) << p;
    ASSERT_LE(std::abs(rgb[3 * p + 1] - U8(g)), 1) << p;
    ASSERT_LE(std::abs(rgb[3 * p + 2] - U8(b)), 1) << p;
  }
}

TEST(ColorSpaceKernel, GrayAndChannelOrder) {
  const auto img = Noise(3 * 1000, 4);
  std::vector<uint8_t> gray(1000), bgr(img.size()), rgb3(img.size()), ycc(img.size()), g2(1000);
  ConvertColorSpace(img.data(), ColorSpace::kRGB, gray.data(), ColorSpace::kGray, DType::kUInt8, 1000);
  for (size_t p = 0; p < 1000; ++p)
    ASSERT_LE(std::abs(gray[p] - U8(0.299 * img[3 * p] + 0.587 * img[3 * p + 1] + 0.114 * img[3 * p + 2])), 1);
  ConvertColorSpace(img.data(), ColorSpace::kRGB, bgr.data(), ColorSpace::kBGR, DType::kUInt8, 1000);
  for (size_t p = 0; p < 1000; ++p)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(bgr[3 * p + c], img[3 * p + 2 - c]);
  ConvertColorSpace(gray.data(), ColorSpace::kGray, rgb3.data(), ColorSpace::kRGB, DType::kUInt8, 1000);
  for (size_t p = 0; p < 1000; ++p)
    for (int c = 0; c < 3; ++c) ASSERT_EQ(rgb3[3 * p + c], gray[p]);
  ConvertColorSpace(gray.data(), ColorSpace::kGray, ycc.data(), ColorSpace::kYCbCr, DType::kUInt8, 1000);
  for (size_t p = 0; p < 1000; ++p) {
    ASSERT_LE(std::abs(ycc[3 * p] - U8(16 + gray[p] * 219.0 / 255)), 1);
    ASSERT_EQ(ycc[3 * p + 1], 128);
    ASSERT_EQ(ycc[3 * p + 2], 128);
  }
  ConvertColorSpace(ycc.data(), ColorSpace::kYCbCr, g2.data(), ColorSpace::kGray, DType::kUInt8, 1000);
  for (size_t p = 0; p < 1000; ++p) ASSERT_LE(std::abs(g2[p] - gray[p]), 1);
}

TEST(ColorSpaceKernel, FloatIsNormalizedAndUnclamped) {
  const float rgb[6] = {1, 1, 1, 0.2f, 0.5f, 0.9f};
  float ycc[6], gray[2];
  ConvertColorSpace(rgb, ColorSpace::kRGB, ycc, ColorSpace::kYCbCr, DType::kFloat32, 2);
  EXPECT_NEAR(ycc[0], 219.0 / 255 + 16.0 / 256, 1e-5);  // white: Y = 219/255 above the offset 16/256
  EXPECT_NEAR(ycc[1], 0.5, 1e-5);
  EXPECT_NEAR(ycc[2], 0.5, 1e-5);
  double ref[3];
  YCbCrRef(0.2, 0.5, 0.9, ref);
  EXPECT_NEAR(ycc[3], 0.0625 + (ref[0] - 16), 1e-5);
  EXPECT_NEAR(ycc[4], 0.5 + (ref[1] - 128), 1e-5);
  EXPECT_NEAR(ycc[5], 0.5 + (ref[2] - 128), 1e-5);
  ConvertColorSpace(rgb, ColorSpace::kRGB, gray, ColorSpace::kGray, DType::kFloat32, 2);
  EXPECT_NEAR(gray[1], 0.299 * 0.2 + 0.587 * 0.5 + 0.114 * 0.9, 1e-6);
  const float out_of_range[3] = {1.5f, 1.5f, 1.5f};
  ConvertColorSpace(out_of_range, ColorSpace::kRGB, gray, ColorSpace::kGray, DType::kFloat32, 1);
  EXPECT_NEAR(gray[0], 1.5, 1e-5);  // no clamping of float data
}

// Histogram equalization written directly from its definition (double arithmetic).
std::vector<uint8_t> EqualizeRef(const std::vector<uint8_t>& in) {
  std::vector<int64_t> hist(256, 0);
  for (uint8_t v : in) ++hist[v];
  int i0 = 0;
  while (hist[static_cast<size_t>(i0)] == 0) ++i0;
  const auto n = static_cast<int64_t>(in.size());
  if (hist[static_cast<size_t>(i0)] == n) return in;
  std::vector<uint8_t> out(in.size());
  std::vector<int64_t> cdf(256, 0);
  int64_t c = 0;
  for (int v = 0; v < 256; ++v) cdf[static_cast<size_t>(v)] = c += hist[static_cast<size_t>(v)];
  for (size_t k = 0; k < in.size(); ++k)
    out[k] = static_cast<uint8_t>(
        U8(static_cast<double>(cdf[in[k]] - hist[static_cast<size_t>(i0)]) * 255.0 / static_cast<double>(n - hist[static_cast<size_t>(i0)])));
  return out;
}

TEST(EqualizeKernel, PerChannelMatchesTheDefinition) {
  // A skewed distribution (squares of noise) so that equalization changes it.
  auto img = Noise(3 * 5000, 5);
  for (auto& v : img) v = static_cast<uint8_t>(v * v / 255);
  std::vector<uint8_t> out(img.size());
  Equalize(img.data(), out.data(), 5000, 3);
  for (int c = 0; c < 3; ++c) {
    std::vector<uint8_t> ch;
    for (size_t p = 0; p < 5000; ++p) ch.push_back(img[3 * p + static_cast<size_t>(c)]);
    const auto ref = EqualizeRef(ch);
    for (size_t p = 0; p < 5000; ++p) ASSERT_LE(std::abs(out[3 * p + static_cast<size_t>(c)] - ref[p]), 1) << c << " " << p;
  }
  EXPECT_EQ(*std::max_element(out.begin(), out.end()), 255);
  EXPECT_EQ(*std::min_element(out.begin(), out.end()), 0);
}

// The one-pass histograms (1, 3 and 4 channels) and the generic path (2, 5) give what the
// per-channel strided table gives, for odd pixel counts and skewed data.
TEST(EqualizeKernel, EveryChannelCountMatchesThePerChannelTable) {
  std::mt19937 rng(21);
  for (int c : {1, 2, 3, 4, 5})
    for (int64_t pixels : {1, 2, 7, 999}) {
      std::vector<uint8_t> in(size_t(pixels * c));
      for (auto& v : in) v = uint8_t((rng() % 97) * (rng() % 3));  // skewed: many zeros
      std::vector<uint8_t> out(in.size());
      Equalize(in.data(), out.data(), pixels, c);
      for (int ch = 0; ch < c; ++ch) {
        uint8_t lut[256];
        EqualizeLut(in.data() + ch, pixels, c, lut);
        for (int64_t p = 0; p < pixels; ++p)
          ASSERT_EQ(out[size_t(p * c + ch)], lut[in[size_t(p * c + ch)]]) << c << " channels, " << pixels << " pixels";
      }
    }
}

TEST(EqualizeKernel, ConstantAndTwoLevelImages) {
  std::vector<uint8_t> flat(100, 77), out(100);
  Equalize(flat.data(), out.data(), 100, 1);
  EXPECT_EQ(out, flat);  // one value: unchanged (as OpenCV)
  std::vector<uint8_t> two(100, 10);
  for (size_t k = 0; k < 30; ++k) two[k] = 200;
  Equalize(two.data(), out.data(), 100, 1);
  for (size_t k = 0; k < 100; ++k) ASSERT_EQ(out[k], k < 30 ? 255 : 0);
  // In place.
  Equalize(two.data(), two.data(), 100, 1);
  EXPECT_EQ(two, out);
}

TEST(LookupTableKernel, DalisDocumentedExample) {
  const LookupTable lut({0, 2, 3, 4, 5, 3}, {0.2, 0.4, 0.5, 0.6, 0.7, 0.10}, 0.99, DType::kFloat32);
  const std::vector<int32_t> in = {1, 4, 1, 0, 100, 2, 3, 4, -3, 5, 6};
  std::vector<float> out(in.size());
  lut.Apply(in.data(), DType::kInt32, out.data(), in.size());
  const std::vector<float> want = {0.99f, 0.6f, 0.99f, 0.2f, 0.99f, 0.4f, 0.10f, 0.6f, 0.99f, 0.7f, 0.99f};
  EXPECT_EQ(out, want);
  EXPECT_EQ(lut.size(), 6u);
}

TEST(LookupTableKernel, TypesAndErrors) {
  // uint8 -> uint8 inversion table; values rounded and saturated.
  std::vector<int64_t> keys;
  std::vector<double> values;
  for (int k = 0; k < 256; ++k) keys.push_back(k), values.push_back(255.4 - k);
  const LookupTable inv(keys, values, 0, DType::kUInt8);
  const auto img = Noise(1000, 6);
  std::vector<uint8_t> out(1000);
  inv.Apply(img.data(), DType::kUInt8, out.data(), img.size());
  for (size_t k = 0; k < img.size(); ++k) ASSERT_EQ(out[k], 255 - img[k]);
  const LookupTable sat({1, 2}, {-5.0, 300.0}, 1000.0, DType::kUInt8);
  const int16_t in16[4] = {1, 2, 3, -1};
  uint8_t o[4];
  sat.Apply(in16, DType::kInt16, o, 4);
  EXPECT_EQ(std::vector<int>(o, o + 4), (std::vector<int>{0, 255, 255, 255}));
  EXPECT_THROW(LookupTable({1, 2}, {1.0}, 0, DType::kFloat32), sluice::Error);
  EXPECT_THROW(LookupTable({70000}, {1.0}, 0, DType::kFloat32), sluice::Error);
  EXPECT_THROW(LookupTable({-1}, {1.0}, 0, DType::kFloat32), sluice::Error);
  const LookupTable empty({}, {}, 3.0, DType::kFloat32);
  float f[2];
  const uint8_t u[2] = {0, 9};
  empty.Apply(u, DType::kUInt8, f, 2);
  EXPECT_EQ(f[0], 3.0f);
  EXPECT_EQ(f[1], 3.0f);
  EXPECT_THROW(empty.Apply(f, DType::kFloat32, f, 1), sluice::Error);
}

// Mean and variance over `mask` axes of a 3-D float tensor, computed directly.
void StatsRef(const std::vector<float>& x, const std::vector<int64_t>& d, uint32_t mask, int ddof,
              std::vector<double>& mean, std::vector<double>& var) {
  auto pd = d;
  for (int a = 0; a < 3; ++a)
    if (mask >> a & 1) pd[static_cast<size_t>(a)] = 1;
  const int64_t P = pd[0] * pd[1] * pd[2];
  mean.assign(static_cast<size_t>(P), 0);
  var.assign(static_cast<size_t>(P), 0);
  std::vector<int64_t> cnt(static_cast<size_t>(P), 0);
  auto pidx = [&](int64_t i, int64_t j, int64_t k) {
    return ((mask & 1 ? 0 : i) * pd[1] + (mask & 2 ? 0 : j)) * pd[2] + (mask & 4 ? 0 : k);
  };
  for (int pass = 0; pass < 2; ++pass)
    for (int64_t i = 0; i < d[0]; ++i)
      for (int64_t j = 0; j < d[1]; ++j)
        for (int64_t k = 0; k < d[2]; ++k) {
          const auto p = static_cast<size_t>(pidx(i, j, k));
          const double v = x[static_cast<size_t>((i * d[1] + j) * d[2] + k)];
          if (pass == 0) mean[p] += v, ++cnt[p];
          else var[p] += (v - mean[p]) * (v - mean[p]);
          if (pass == 0 && i == d[0] - 1 && j == d[1] - 1 && k == d[2] - 1)
            for (size_t q = 0; q < mean.size(); ++q) mean[q] /= static_cast<double>(cnt[q]);
        }
  for (size_t q = 0; q < var.size(); ++q) var[q] /= static_cast<double>(cnt[q] - ddof);
}

TEST(NormalizeKernel, StatisticsOverEveryAxisSubset) {
  const std::vector<int64_t> d = {5, 7, 3};
  std::mt19937 rng(7);
  std::normal_distribution<float> nd(3.0f, 2.0f);
  std::vector<float> x(5 * 7 * 3);
  for (auto& v : x) v = nd(rng);
  for (uint32_t mask = 0; mask < 8; ++mask) {
    NormalizeGeometry g{d, mask};
    const auto P = static_cast<size_t>(g.ParamVolume());
    std::vector<double> sums(P, 0), acc(P, 0), mean(P), rm, rv;
    AccumulateSum(x.data(), DType::kFloat32, g, sums.data());
    for (size_t p = 0; p < P; ++p) mean[p] = sums[p] / static_cast<double>(g.GroupSize());
    AccumulateSquaredDeviation(x.data(), DType::kFloat32, g, mean.data(), acc.data());
    StatsRef(x, d, mask, 1, rm, rv);
    ASSERT_EQ(rm.size(), P);
    for (size_t p = 0; p < P; ++p) {
      ASSERT_NEAR(mean[p], rm[p], 1e-9) << mask;
      if (g.GroupSize() > 1) ASSERT_NEAR(acc[p] / static_cast<double>(g.GroupSize() - 1), rv[p], 1e-9) << mask;
    }
    // Apply with those statistics: every group comes out with mean shift and stddev scale.
    std::vector<float> m(P), mul(P), out(x.size());
    for (size_t p = 0; p < P; ++p) {
      m[p] = static_cast<float>(rm[p]);
      mul[p] = NormalizeMultiplier(acc[p] / static_cast<double>(g.GroupSize()), 0.0, 2.0);
    }
    NormalizeApply(x.data(), DType::kFloat32, out.data(), DType::kFloat32, g, m.data(), mul.data(), 10.0f);
    std::vector<double> om, ov;
    StatsRef(out, d, mask, 0, om, ov);
    for (size_t p = 0; p < P; ++p) {
      ASSERT_NEAR(om[p], 10.0, 1e-4) << mask;
      if (g.GroupSize() > 1) ASSERT_NEAR(std::sqrt(ov[p]), 2.0, 1e-4) << mask;
    }
  }
}

// A byte image normalized per channel goes through per-channel tables when it is large: the
// results must equal the element-by-element path's (taken for small inputs), row by row, for
// uint8 and int8 inputs and float, uint8, int8 and int16 outputs (rounding and saturation).
TEST(NormalizeKernel, ByteInputTablesGiveTheElementwiseResults) {
  const int64_t h = 40, w = 64, c = 3;
  std::vector<uint8_t> img(static_cast<size_t>(h * w * c));
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<uint8_t>((i * 53 + i / 97) & 255);
  const float mean[3] = {120.5f, 99.25f, 140.f};
  const float mul[3] = {1.7f, -2.3f, 0.01f};
  for (DType in_type : {DType::kUInt8, DType::kInt8}) {
    for (DType out_type : {DType::kFloat32, DType::kUInt8, DType::kInt8, DType::kInt16}) {
      const size_t es = SizeOf(out_type);
      std::vector<unsigned char> whole(img.size() * es), rows(img.size() * es);
      NormalizeApply(img.data(), in_type, whole.data(), out_type, NormalizeGeometry{{h, w, c}, 3u}, mean, mul, 7.5f);
      const size_t row = static_cast<size_t>(w * c);
      for (int64_t y = 0; y < h; ++y)  // 192 elements: under the tables' threshold
        NormalizeApply(img.data() + y * row, in_type, rows.data() + y * row * es, out_type,
                       NormalizeGeometry{{1, w, c}, 3u}, mean, mul, 7.5f);
      EXPECT_EQ(whole, rows) << ToString(in_type) << " -> " << ToString(out_type);
      // One parameter group for the whole sample (all axes reduced), and 4 channels.
      for (int64_t ch : {int64_t{1}, int64_t{4}}) {
        const uint32_t reduced = ch == 1 ? 7u : 3u;
        const float mean4[4] = {120.5f, 99.25f, 140.f, 3.f}, mul4[4] = {1.7f, -2.3f, 0.01f, 0.9f};
        const int64_t wc = static_cast<int64_t>(img.size()) / (h * ch);
        NormalizeApply(img.data(), in_type, whole.data(), out_type, NormalizeGeometry{{h, wc, ch}, reduced}, mean4,
                       mul4, 7.5f);
        const size_t row_c = static_cast<size_t>(wc * ch);
        for (int64_t y = 0; y < h; ++y)
          NormalizeApply(img.data() + y * row_c, in_type, rows.data() + y * row_c * es, out_type,
                         NormalizeGeometry{{1, wc, ch}, reduced}, mean4, mul4, 7.5f);
        EXPECT_EQ(whole, rows) << ToString(in_type) << " -> " << ToString(out_type) << ", " << ch << " channels";
      }
    }
  }
}

TEST(NormalizeKernel, IntegerOutputsAndZeroVariance) {
  const uint8_t in[4] = {0, 100, 200, 255};
  NormalizeGeometry g{{4}, 1u};
  const float mean = 100, mul = 0.5f;
  uint8_t out[4];
  NormalizeApply(in, DType::kUInt8, out, DType::kUInt8, g, &mean, &mul, 128.0f);
  EXPECT_EQ(std::vector<int>(out, out + 4), (std::vector<int>{78, 128, 178, 206}));
  int8_t o8[4];
  const float mul8 = 1.0f;
  NormalizeApply(in, DType::kUInt8, o8, DType::kInt8, g, &mean, &mul8, 0.0f);
  EXPECT_EQ(std::vector<int>(o8, o8 + 4), (std::vector<int>{-100, 0, 100, 127}));
  EXPECT_EQ(NormalizeMultiplier(0.0, 0.0, 1.0), 0.0f);
  EXPECT_FLOAT_EQ(NormalizeMultiplier(3.0, 1.0, 4.0), 2.0f);
}

}  // namespace
}  // namespace sluice::kernels
