#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/crop_mirror_normalize/crop_mirror_normalize.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Straightforward scalar reference, written from the DALI definition.
std::vector<float> Reference(const std::vector<uint8_t>& in, int H, int W, int C, const CmnParams& p) {
  const int Co = C + (p.pad_output ? 1 : 0);
  std::vector<float> out(size_t(p.crop_h) * p.crop_w * Co);
  for (int y = 0; y < p.crop_h; ++y)
    for (int x = 0; x < p.crop_w; ++x)
      for (int c = 0; c < Co; ++c) {
        const int sy = p.crop_y + y, sx = p.crop_x + (p.mirror ? p.crop_w - 1 - x : x);
        float v;
        if (c == C) v = 0;
        else if (sy < 0 || sy >= H || sx < 0 || sx >= W) v = p.fill_values.empty() ? 0.f : p.fill_values[p.fill_values.size() == 1 ? 0 : c];
        else {
          const float mean = p.mean.empty() ? 0.f : p.mean[p.mean.size() == 1 ? 0 : c];
          const float sd = p.stddev.empty() ? 1.f : p.stddev[p.stddev.size() == 1 ? 0 : c];
          v = (float(in[(size_t(sy) * W + sx) * C + c]) - mean) * (p.scale / sd) + p.shift;
        }
        const size_t idx = p.layout == CmnLayout::kCHW ? (size_t(c) * p.crop_h + y) * p.crop_w + x
                                                      : (size_t(y) * p.crop_w + x) * Co + c;
        out[idx] = v;
      }
  return out;
}

const float kMean[] = {123.675f, 116.28f, 103.53f, 100.f};
const float kStd[] = {58.395f, 57.12f, 57.375f, 50.f};
const float kFill[] = {-1.f, 2.5f, 300.f, 7.f};

TEST(CropMirrorNormalize, MatchesReferenceFloat) {
  std::mt19937 rng(11);
  const int H = 37, W = 45;
  for (int C : {1, 3, 4}) {
    std::vector<uint8_t> in(size_t(H) * W * C);
    for (auto& v : in) v = uint8_t(rng());
    struct Win { int x, y, w, h; };
    for (Win w : {Win{0, 0, 45, 37}, Win{3, 5, 30, 20}, Win{-7, -3, 60, 50}, Win{40, 30, 17, 19}, Win{-20, 0, 10, 5}}) {
      for (bool mirror : {false, true})
        for (CmnLayout layout : {CmnLayout::kCHW, CmnLayout::kHWC})
          for (bool pad : {false, true}) {
            CmnParams p;
            p.crop_x = w.x; p.crop_y = w.y; p.crop_w = w.w; p.crop_h = w.h;
            p.mirror = mirror;
            p.mean = std::span<const float>(kMean, size_t(C));
            p.stddev = std::span<const float>(kStd, size_t(C));
            p.fill_values = std::span<const float>(kFill, size_t(C));
            p.scale = 1.5f;
            p.shift = 0.25f;
            p.layout = layout;
            p.pad_output = pad;
            std::vector<float> out(CmnOutputElements(p, C), -12345.f);
            CropMirrorNormalize(in.data(), H, W, C, p, DType::kFloat32, out.data());
            auto ref = Reference(in, H, W, C, p);
            ASSERT_EQ(out.size(), ref.size());
            for (size_t i = 0; i < ref.size(); ++i)
              ASSERT_NEAR(out[i], ref[i], 1e-4f * (1 + std::fabs(ref[i])))
                  << "C=" << C << " win " << w.x << "," << w.y << " mirror " << mirror << " chw " << (layout == CmnLayout::kCHW)
                  << " pad " << pad << " i=" << i;
          }
    }
  }
}

TEST(CropMirrorNormalize, IntegerAndHalfOutputs) {
  std::mt19937 rng(5);
  const int H = 20, W = 33, C = 3;
  std::vector<uint8_t> in(size_t(H) * W * C);
  for (auto& v : in) v = uint8_t(rng());
  CmnParams p;
  p.crop_x = -2; p.crop_y = 1; p.crop_w = 31; p.crop_h = 18;
  p.mirror = true;
  const float mean[] = {128.f};
  const float sd[] = {0.5f};  // large gain: forces saturation
  p.mean = mean;
  p.stddev = sd;
  p.fill_values = std::span<const float>(kFill, 3);
  auto ref = Reference(in, H, W, C, p);
  std::vector<uint8_t> u8(ref.size());
  std::vector<int8_t> i8(ref.size());
  std::vector<float16> f16(ref.size());
  CropMirrorNormalize(in.data(), H, W, C, p, DType::kUInt8, u8.data());
  CropMirrorNormalize(in.data(), H, W, C, p, DType::kInt8, i8.data());
  CropMirrorNormalize(in.data(), H, W, C, p, DType::kFloat16, f16.data());
  for (size_t i = 0; i < ref.size(); ++i) {
    const float r = std::nearbyint(ref[i]);
    ASSERT_EQ(u8[i], uint8_t(std::clamp(r, 0.f, 255.f))) << i;
    ASSERT_EQ(i8[i], int8_t(std::clamp(r, -128.f, 127.f))) << i;
    ASSERT_NEAR(float(f16[i]), ref[i], std::fabs(ref[i]) * 1e-3f + 1e-3f) << i;
  }
}

TEST(CropMirrorNormalize, Errors) {
  std::vector<uint8_t> in(10 * 10 * 3);
  std::vector<float> out(1000);
  CmnParams p;
  p.crop_w = 5; p.crop_h = 5;
  EXPECT_THROW(CropMirrorNormalize(in.data(), 10, 10, 3, p, DType::kInt32, out.data()), Error);
  // std and the lengths of mean/std/fill_values are the caller's to check (the operator's plan).
  p.crop_w = 0;
  EXPECT_THROW(CropMirrorNormalize(in.data(), 10, 10, 3, p, DType::kFloat32, out.data()), Error);
}

// The coefficients other backends take from the kernel: a = scale / std, b = shift - mean * a.
TEST(CropMirrorNormalize, NormalizationAndFusedRows) {
  CmnParams p;
  const float mean[] = {10.f, 20.f, 30.f}, sd[] = {2.f}, fill[] = {7.f};
  p.mean = mean;
  p.stddev = sd;
  p.fill_values = fill;
  p.scale = 3.f;
  p.shift = 1.f;
  const CmnCoefficients k = CmnNormalization(p, 3);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(k.a[c], 1.5f);
    EXPECT_EQ(k.b[c], 1.f - mean[c] * 1.5f);
    EXPECT_EQ(k.fill[c], 7.f);
  }
  EXPECT_TRUE(CmnFusedRows(DType::kUInt8, 3, p));
  EXPECT_FALSE(CmnFusedRows(DType::kFloat32, 3, p));
  EXPECT_FALSE(CmnFusedRows(DType::kUInt8, 4, p));
  p.pad_output = true;
  EXPECT_TRUE(CmnFusedRows(DType::kUInt8, 3, p));  // CHW
  p.layout = CmnLayout::kHWC;
  EXPECT_FALSE(CmnFusedRows(DType::kUInt8, 3, p));
}

}  // namespace
}  // namespace sluice::kernels
