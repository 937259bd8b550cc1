// kernels::ClahePlane's contracts beyond the OpenCV comparison (python/tests/test_clahe.py): in-place
// use gives the same result; one tile without clipping is plain histogram equalization by OpenCV's
// table (round(cdf * 255 / area)); a strided channel of an HWC image equals that channel alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/color/clahe.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> Ramp(int64_t h, int64_t w, int channels = 1) {
  std::vector<uint8_t> v(static_cast<size_t>(h * w * channels));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>((i * 7 + (i / 13) * 3) % 200 + 20);
  return v;
}

TEST(Clahe, InPlaceEqualsOutOfPlace) {
  const auto src = Ramp(37, 53);
  std::vector<uint8_t> out(src.size()), inplace = src;
  const ClaheParams p{5, 3, 2.0};
  ClahePlane(src.data(), out.data(), 37, 53, 1, p);
  ClahePlane(inplace.data(), inplace.data(), 37, 53, 1, p);
  EXPECT_EQ(out, inplace);
}

TEST(Clahe, OneTileWithoutClippingIsHistogramEqualization) {
  const auto src = Ramp(16, 16);
  std::vector<uint8_t> out(src.size());
  ClahePlane(src.data(), out.data(), 16, 16, 1, ClaheParams{1, 1, 0.0});
  int hist[256] = {};
  for (uint8_t v : src) ++hist[v];
  uint8_t lut[256];
  int sum = 0;
  for (int i = 0; i < 256; ++i) {
    sum += hist[i];
    lut[i] = static_cast<uint8_t>(std::nearbyint(static_cast<float>(sum) * (255.0f / 256.0f)));
  }
  for (size_t i = 0; i < src.size(); ++i) EXPECT_EQ(out[i], lut[src[i]]) << i;
}

TEST(Clahe, AStridedChannelEqualsThePlaneAlone) {
  const auto hwc = Ramp(20, 30, 3);
  std::vector<uint8_t> plane(20 * 30), from_plane(plane.size()), from_hwc(hwc.size());
  for (size_t i = 0; i < plane.size(); ++i) plane[i] = hwc[3 * i + 1];
  const ClaheParams p{4, 4, 3.0};
  ClahePlane(plane.data(), from_plane.data(), 20, 30, 1, p);
  ClahePlane(hwc.data() + 1, from_hwc.data() + 1, 20, 30, 3, p);
  for (size_t i = 0; i < plane.size(); ++i) EXPECT_EQ(from_hwc[3 * i + 1], from_plane[i]) << i;
}

}  // namespace
}  // namespace sluice::kernels
