// kernels::RgbToLab8 / Lab8ToRgb against OpenCV's 8-bit COLOR_RGB2Lab / COLOR_Lab2RGB: every one of
// the 2^24 inputs of each direction, through a position-weighted sum of all output bytes whose value
// was computed from cv2.cvtColor's outputs (OpenCV 5.0.0 and 4.6.0 give the same bytes; DALI 2.4's
// clahe converts through them). A changed byte anywhere changes the sum. A few named colours say
// what the encoding is. In-place conversion equals out-of-place.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/color/lab8.h"

namespace sluice::kernels {
namespace {

// Every RGB (or Lab) triple, R (or L) in the high byte of the index.
std::vector<uint8_t> AllTriples() {
  std::vector<uint8_t> v(size_t{3} << 24);
  for (uint32_t i = 0; i < (1u << 24); ++i) {
    v[3 * size_t{i}] = static_cast<uint8_t>(i >> 16);
    v[3 * size_t{i} + 1] = static_cast<uint8_t>(i >> 8);
    v[3 * size_t{i} + 2] = static_cast<uint8_t>(i);
  }
  return v;
}

// sum of byte[i] * (i * golden ratio constant), mod 2^64.
uint64_t WeightedSum(const std::vector<uint8_t>& bytes) {
  uint64_t h = 0;
  for (size_t i = 0; i < bytes.size(); ++i) h += bytes[i] * (uint64_t{i} * 0x9E3779B97F4A7C15ULL);
  return h;
}

TEST(Lab8, EveryRgbAndEveryLabAsOpenCv) {
  const auto all = AllTriples();
  std::vector<uint8_t> out(all.size());
  RgbToLab8(all.data(), out.data(), int64_t{1} << 24);
  EXPECT_EQ(WeightedSum(out), 0x83704bca8669f92bULL);
  Lab8ToRgb(all.data(), out.data(), int64_t{1} << 24);
  EXPECT_EQ(WeightedSum(out), 0xdca16641b1f5fabcULL);
}

TEST(Lab8, NamedColours) {
  // {R, G, B} -> {L * 255 / 100, a + 128, b + 128}, OpenCV's values.
  const std::array<std::array<uint8_t, 6>, 6> rgb_lab = {{{0, 0, 0, 0, 128, 128},
                                                          {255, 255, 255, 255, 128, 128},
                                                          {128, 128, 128, 137, 128, 128},
                                                          {255, 0, 0, 136, 208, 195},
                                                          {0, 255, 0, 224, 42, 211},
                                                          {0, 0, 255, 82, 207, 20}}};
  for (const auto& c : rgb_lab) {
    uint8_t lab[3], rgb[3];
    RgbToLab8(c.data(), lab, 1);
    EXPECT_EQ(lab[0], c[3]);
    EXPECT_EQ(lab[1], c[4]);
    EXPECT_EQ(lab[2], c[5]);
    // Back: the 8-bit Lab quantization moves saturated primaries by up to 7 levels (as OpenCV's).
    Lab8ToRgb(lab, rgb, 1);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(rgb[k], c[k], 7) << int(c[0]) << " " << int(c[1]) << " " << int(c[2]);
  }
}

TEST(Lab8, InPlaceEqualsOutOfPlace) {
  std::vector<uint8_t> src(3 * 1000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + i / 7);
  std::vector<uint8_t> out(src.size()), inplace = src;
  RgbToLab8(src.data(), out.data(), 1000);
  RgbToLab8(inplace.data(), inplace.data(), 1000);
  EXPECT_EQ(out, inplace);
  Lab8ToRgb(src.data(), out.data(), 1000);
  inplace = src;
  Lab8ToRgb(inplace.data(), inplace.data(), 1000);
  EXPECT_EQ(out, inplace);
}

}  // namespace
}  // namespace sluice::kernels
