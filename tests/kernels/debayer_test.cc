// The debayer kernels' contracts beyond the OpenCV comparison (python/tests/test_debayer.py): a
// mosaic of one flat colour demosaics to that colour everywhere (borders included), for every
// pattern, both types and every algorithm, and to the fixed-point weighted gray for DebayerGray;
// images under 3x3 are all zeros; the uint8 kernels give the same bytes on every SIMD target.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <algorithm>
#include <cstdint>
#include <random>
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

// The Highway rows run at each target's own width (VNG: 8, 16 or 32 pixels per vector, the rest in
// 128 bits), so every target must give the bytes the first gives, on noise (every gradient branch),
// for widths that leave remainders of every kind and every pattern.
TEST(Debayer, Uint8SameBytesOnEverySimdTarget) {
  std::mt19937 rng(11);
  std::vector<std::vector<uint8_t>> mosaics;
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{37, 131}, {20, 77}, {12, 200}, {9, 43}, {16, 18}};
  for (const auto& [h, w] : sizes) {
    std::vector<uint8_t> m(static_cast<size_t>(h * w));
    for (auto& v : m) v = static_cast<uint8_t>(rng() & 255);
    mosaics.push_back(std::move(m));
  }
  auto run_all = [&] {
    std::vector<uint8_t> all;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const auto [h, w] = sizes[k];
      std::vector<uint8_t> rgb(static_cast<size_t>(h * w * 3)), gray(static_cast<size_t>(h * w));
      for (int p = 0; p < 4; ++p) {
        DebayerVng(mosaics[k].data(), rgb.data(), h, w, p >> 1, p & 1);
        all.insert(all.end(), rgb.begin(), rgb.end());
        DebayerBilinear(mosaics[k].data(), rgb.data(), h, w, p >> 1, p & 1);
        all.insert(all.end(), rgb.begin(), rgb.end());
        DebayerEdgeAware(mosaics[k].data(), rgb.data(), h, w, p >> 1, p & 1);
        all.insert(all.end(), rgb.begin(), rgb.end());
        DebayerGray(mosaics[k].data(), gray.data(), h, w, p >> 1, p & 1);
        all.insert(all.end(), gray.begin(), gray.end());
      }
    }
    return all;
  };
  std::vector<uint8_t> first;
  int64_t first_target = 0;
  const auto targets = hwy::SupportedAndGeneratedTargets();
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const auto all = run_all();
    if (first.empty()) {
      first = all;
      first_target = target;
      continue;
    }
    ASSERT_EQ(all.size(), first.size());
    size_t differ = 0;
    for (size_t k = 0; k < all.size(); ++k) differ += all[k] != first[k];
    EXPECT_EQ(differ, 0u) << hwy::TargetName(target) << " vs " << hwy::TargetName(first_target);
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(targets.size(), 2u);
}

}  // namespace
}  // namespace sluice::kernels
