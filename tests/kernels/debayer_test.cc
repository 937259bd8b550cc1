// The debayer kernels' contracts beyond the OpenCV comparison (python/tests/test_debayer.py): a
// mosaic of one flat colour demosaics to that colour everywhere (borders included), for every
// pattern, both types and every algorithm, and to the fixed-point weighted gray for DebayerGray;
// images under 3x3 are all zeros.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/color/debayer.h"

namespace sluice::kernels {
namespace {

enum class Alg { kBilinear, kEdgeAware, kVng };

template <typename T>
void FlatColour(T r, T g, T b, Alg alg = Alg::kBilinear) {
  const int64_t h = alg == Alg::kVng ? 12 : 7, w = alg == Alg::kVng ? 43 : 9;
  for (int by = 0; by < 2; ++by) {
    for (int bx = 0; bx < 2; ++bx) {
      std::vector<T> mosaic(static_cast<size_t>(h * w)), rgb(static_cast<size_t>(h * w * 3));
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          const bool is_b = (y & 1) == ((1 + by) & 1) && (x & 1) == ((1 + bx) & 1);
          const bool is_r = (y & 1) == (by & 1) && (x & 1) == (bx & 1);
          mosaic[static_cast<size_t>(y * w + x)] = is_r ? r : is_b ? b : g;
        }
      if constexpr (std::is_same_v<T, uint8_t>)
        if (alg == Alg::kVng) DebayerVng(mosaic.data(), rgb.data(), h, w, by, bx);
      if (alg == Alg::kBilinear) DebayerBilinear(mosaic.data(), rgb.data(), h, w, by, bx);
      if (alg == Alg::kEdgeAware) DebayerEdgeAware(mosaic.data(), rgb.data(), h, w, by, bx);
      if (alg == Alg::kBilinear || alg == Alg::kEdgeAware || std::is_same_v<T, uint8_t>) {
        std::vector<T> gray(static_cast<size_t>(h * w));
        DebayerGray(mosaic.data(), gray.data(), h, w, by, bx);
        // (R * 4899 + G * 9617 + B * 1868) / 2^14, rounded: the weights sum to 2^14.
        const T expect = static_cast<T>((uint64_t(r) * 4899 + uint64_t(g) * 9617 + uint64_t(b) * 1868 + 8192) >> 14);
        for (int64_t i = 0; i < h * w; ++i)
          EXPECT_NEAR(double(gray[static_cast<size_t>(i)]), double(expect), 1.0) << by << bx << " " << i;
      }
      for (int64_t i = 0; i < h * w; ++i) {
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i)], r) << by << bx << " " << i;
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i + 1)], g) << by << bx << " " << i;
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i + 2)], b) << by << bx << " " << i;
      }
    }
  }
}

TEST(Debayer, AFlatColourStaysFlat) {
  for (Alg alg : {Alg::kBilinear, Alg::kEdgeAware, Alg::kVng}) {
    FlatColour<uint8_t>(200, 90, 17, alg);
    FlatColour<uint8_t>(255, 255, 255, alg);
  }
  FlatColour<uint16_t>(65535, 1234, 40000, Alg::kBilinear);
  FlatColour<uint16_t>(65535, 65535, 65535, Alg::kEdgeAware);  // the gray sums' largest value fits
}

TEST(Debayer, TinyImagesAreZeros) {
  std::vector<uint8_t> mosaic(2 * 5, 100), rgb(2 * 5 * 3, 1), gray(2 * 5, 1);
  DebayerBilinear(mosaic.data(), rgb.data(), 2, 5, 0, 0);
  for (uint8_t v : rgb) EXPECT_EQ(v, 0);
  std::fill(rgb.begin(), rgb.end(), 1);
  DebayerEdgeAware(mosaic.data(), rgb.data(), 2, 5, 0, 0);
  for (uint8_t v : rgb) EXPECT_EQ(v, 0);
  DebayerGray(mosaic.data(), gray.data(), 2, 5, 0, 0);
  for (uint8_t v : gray) EXPECT_EQ(v, 0);
}

}  // namespace
}  // namespace sluice::kernels
