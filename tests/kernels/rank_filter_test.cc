// RankFilter2D (kernels/morphology/rank_filter.h) against independent references:
//   - SelectionNetwork: for every window size up to 64 elements, the network's output at the median
//     position equals std::nth_element's on random inputs (with many ties) and on every 0/1 input of
//     up to 16 elements (the 0-1 principle);
//   - the filter against a brute-force scalar reference written here (BorderIndex per tap, the
//     neutral value outside in constant mode, std::sort for the median) for min, max and median,
//     every border mode, anchors, windows from 1x1 to 9x9 (past the network: the scalar path), HWC,
//     CHW and HW, uint8 / uint16 / float32, images smaller than the window: identical values.
// OpenCV's medianBlur / dilate / erode on photographs are in python/tests/test_rank_filters.py.
#include "kernels/morphology/rank_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <tuple>

#include "sluice/error.h"

namespace sluice::kernels {
namespace {

TEST(SelectionNetwork, PlacesTheMedianForEveryWindowSize) {
  std::mt19937 rng(3);
  for (int n = 1; n <= 64; ++n) {
    const int k = n / 2;
    const auto net = SelectionNetwork(n, k);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<int> v(static_cast<size_t>(n));
      for (int& x : v) x = int(rng() % (trial % 2 ? 5 : 1000));
      std::vector<int> w = v;
      for (auto [a, b] : net)
        if (w[a] > w[b]) std::swap(w[a], w[b]);
      std::nth_element(v.begin(), v.begin() + k, v.end());
      ASSERT_EQ(w[size_t(k)], v[size_t(k)]) << "n " << n << " trial " << trial;
    }
    if (n <= 16)
      for (uint32_t bits = 0; bits < (1u << n); ++bits) {
        std::vector<int> w(static_cast<size_t>(n));
        int ones = 0;
        for (int i = 0; i < n; ++i) ones += w[size_t(i)] = int((bits >> i) & 1);
        for (auto [a, b] : net)
          if (w[a] > w[b]) std::swap(w[a], w[b]);
        ASSERT_EQ(w[size_t(k)], k >= n - ones ? 1 : 0) << "n " << n << " bits " << bits;
      }
  }
  EXPECT_LE(SelectionNetwork(9, 4).size(), 30u);  // 3x3: about OpenCV's 19-comparator network
}

template <typename T>
std::vector<T> Reference(const std::vector<T>& img, int h, int w, int c_n, const RankFilterParams& p) {
  std::vector<T> out(img.size());
  const BorderMode border = p.op == RankOp::kMedian ? BorderMode::kClamp : p.border;
  const T fill = p.op == RankOp::kMin ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  std::vector<T> win;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < c_n; ++c) {
        win.clear();
        for (int i = 0; i < p.kh; ++i)
          for (int j = 0; j < p.kw; ++j) {
            const int64_t sy = BorderIndex(y - p.anchor_y + i, h, border), sx = BorderIndex(x - p.anchor_x + j, w, border);
            win.push_back(sy < 0 || sx < 0 ? fill : img[size_t((sy * w + sx) * c_n + c)]);
          }
        std::sort(win.begin(), win.end());
        out[size_t((y * w + x) * c_n + c)] =
            p.op == RankOp::kMin ? win.front() : p.op == RankOp::kMax ? win.back() : win[win.size() / 2];
      }
  return out;
}

template <typename T>
void CheckType(DType type, std::mt19937& rng) {
  const BorderMode borders[] = {BorderMode::kConstant, BorderMode::kClamp, BorderMode::kReflect1001,
                                BorderMode::kReflect101, BorderMode::kWrap};
  struct Win { int kw, kh, ax, ay; };
  const Win wins[] = {{1, 1, 0, 0}, {3, 3, 1, 1}, {5, 5, 2, 2}, {5, 3, 0, 2}, {7, 7, 3, 3}, {2, 4, 1, 3}, {9, 9, 4, 4}};
  for (auto [h, w] : {std::pair{13, 29}, std::pair{2, 3}, std::pair{1, 40}}) {
    for (int c_n : {1, 3}) {
      std::vector<T> img(size_t(h * w * c_n));
      for (auto& v : img) v = static_cast<T>(type == DType::kFloat32 ? float(int(rng() % 2001) - 1000) / 7.f : rng() % 200);
      std::vector<T> planar(img.size());
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < c_n; ++c) planar[size_t((c * h + y) * w + x)] = img[size_t((y * w + x) * c_n + c)];
      for (RankOp op : {RankOp::kMin, RankOp::kMax, RankOp::kMedian})
        for (BorderMode b : borders)
          for (const Win& wn : wins) {
            if (op == RankOp::kMedian && b != BorderMode::kClamp) continue;
            const RankFilterParams p{op, wn.kw, wn.kh, wn.ax, wn.ay, b};
            const auto ref = Reference(img, h, w, c_n, p);
            std::vector<T> got(img.size()), got_chw(img.size());
            RankFilter2D(img.data(), got.data(), type, ImageGeom::HWC(h, w, c_n), p);
            RankFilter2D(planar.data(), got_chw.data(), type, ImageGeom::CHW(c_n, h, w), p);
            const std::string what = std::string(ToString(type)) + " op " + std::to_string(int(op)) + " border " +
                                     std::to_string(int(b)) + " window " + std::to_string(wn.kw) + "x" +
                                     std::to_string(wn.kh) + " image " + std::to_string(h) + "x" + std::to_string(w) +
                                     "x" + std::to_string(c_n);
            ASSERT_EQ(got, ref) << what;
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x)
                for (int c = 0; c < c_n; ++c)
                  ASSERT_EQ(got_chw[size_t((c * h + y) * w + x)], ref[size_t((y * w + x) * c_n + c)]) << what << " CHW";
          }
    }
  }
}

TEST(RankFilterKernel, MatchesBruteForceEveryOpBorderAndType) {
  std::mt19937 rng(9);
  CheckType<uint8_t>(DType::kUInt8, rng);
  CheckType<uint16_t>(DType::kUInt16, rng);
  CheckType<float>(DType::kFloat32, rng);
}

// Rows longer than a vector and than the 3x3 median's chunk (4 KiB), odd heights (the last row
// alone), and windows wide enough for the row pass's doubling (kw > 5): the SIMD paths, not only
// their scalar tails.
template <typename T>
void CheckWideRows(DType type, std::mt19937& rng) {
  struct Win { int kw, kh, ax, ay; };
  const Win wins[] = {{3, 3, 1, 1}, {5, 5, 2, 2}, {15, 11, 7, 5}, {16, 3, 0, 2}, {6, 1, 5, 0}, {1, 9, 0, 4}, {3, 3, 0, 2}};
  const BorderMode borders[] = {BorderMode::kConstant, BorderMode::kReflect101, BorderMode::kWrap};
  for (auto [h, w, c_n] : {std::tuple{5, 1400, 3}, std::tuple{3, 1399, 1}, std::tuple{4, 333, 4}}) {
    std::vector<T> img(size_t(h * w * c_n));
    for (auto& v : img) v = static_cast<T>(type == DType::kFloat32 ? float(int(rng() % 2001) - 1000) / 7.f : rng() % 250);
    for (RankOp op : {RankOp::kMin, RankOp::kMax, RankOp::kMedian})
      for (BorderMode b : borders)
        for (const Win& wn : wins) {
          if (op == RankOp::kMedian && (b != BorderMode::kConstant || wn.kw * wn.kh > 25)) continue;
          if (wn.kw * wn.kh > 100 && w * c_n > 2000) continue;  // the brute force's time
          const RankFilterParams p{op, wn.kw, wn.kh, wn.ax, wn.ay, b};
          std::vector<T> got(img.size());
          RankFilter2D(img.data(), got.data(), type, ImageGeom::HWC(h, w, c_n), p);
          ASSERT_EQ(got, Reference(img, h, w, c_n, p))
              << ToString(type) << " op " << int(op) << " border " << int(b) << " window " << wn.kw << "x" << wn.kh
              << " anchor " << wn.ax << "," << wn.ay << " image " << h << "x" << w << "x" << c_n;
        }
  }
}

TEST(RankFilterKernel, MatchesBruteForceOnRowsWiderThanTheSimdChunks) {
  std::mt19937 rng(26);
  CheckWideRows<uint8_t>(DType::kUInt8, rng);
  CheckWideRows<int16_t>(DType::kInt16, rng);
  CheckWideRows<float>(DType::kFloat32, rng);
}

TEST(RankFilterKernel, RejectsAnAnchorOutsideTheWindow) {
  uint8_t px[4] = {}, out[4];
  EXPECT_THROW(RankFilter2D(px, out, DType::kUInt8, ImageGeom::HWC(2, 2, 1), {RankOp::kMax, 3, 3, 3, 0}), Error);
}

}  // namespace
}  // namespace sluice::kernels
