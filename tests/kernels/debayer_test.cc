// kernels::DebayerBilinear's contracts beyond the OpenCV comparison (python/tests/test_debayer.py):
// a mosaic of one flat colour demosaics to that colour everywhere (borders included), for every
// pattern and both types; images under 3x3 are all zeros.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/color/debayer.h"

namespace sluice::kernels {
namespace {

template <typename T>
void FlatColour(T r, T g, T b) {
  const int64_t h = 7, w = 9;
  for (int by = 0; by < 2; ++by) {
    for (int bx = 0; bx < 2; ++bx) {
      std::vector<T> mosaic(static_cast<size_t>(h * w)), rgb(static_cast<size_t>(h * w * 3));
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x) {
          const bool is_b = (y & 1) == ((1 + by) & 1) && (x & 1) == ((1 + bx) & 1);
          const bool is_r = (y & 1) == (by & 1) && (x & 1) == (bx & 1);
          mosaic[static_cast<size_t>(y * w + x)] = is_r ? r : is_b ? b : g;
        }
      DebayerBilinear(mosaic.data(), rgb.data(), h, w, by, bx);
      for (int64_t i = 0; i < h * w; ++i) {
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i)], r) << by << bx << " " << i;
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i + 1)], g) << by << bx << " " << i;
        EXPECT_EQ(rgb[static_cast<size_t>(3 * i + 2)], b) << by << bx << " " << i;
      }
    }
  }
}

TEST(Debayer, AFlatColourStaysFlat) {
  FlatColour<uint8_t>(200, 90, 17);
  FlatColour<uint16_t>(65535, 1234, 40000);
}

TEST(Debayer, TinyImagesAreZeros) {
  std::vector<uint8_t> mosaic(2 * 5, 100), rgb(2 * 5 * 3, 1);
  DebayerBilinear(mosaic.data(), rgb.data(), 2, 5, 0, 0);
  for (uint8_t v : rgb) EXPECT_EQ(v, 0);
}

}  // namespace
}  // namespace sluice::kernels
