// The reduction kernels against straightforward nested-loop references on a 3-D tensor, for every
// combination of reduced axes.
#include <gtest/gtest.h>
#include <cstdint>
#include <random>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kernels/reduce/reduce.h"

namespace sluice::kernels {
namespace {

constexpr int64_t A = 3, B = 4, C = 5;

std::vector<int32_t> Data() {
  std::vector<int32_t> v(static_cast<size_t>(A * B * C));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int32_t>((i * 37 + 11) % 23) - 9;
  return v;
}

// Reference: out index from the kept coordinates, row-major over kept axes.
template <typename Fn>
void Reference(const std::vector<bool>& red, Fn&& fn) {
  const int64_t ext[3] = {A, B, C};
  for (int64_t a = 0; a < A; ++a)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t co[3] = {a, b, c};
        int64_t o = 0;
        for (int d = 0; d < 3; ++d)
          if (!red[static_cast<size_t>(d)]) o = o * ext[d] + co[d];
        fn((a * B + b) * C + c, o);
      }
}

// Integer min/max over all elements, or over an image's pixels per channel, run as a block loop:
// every pixel count around the block size, channel counts up to the block path's limit and past
// it, uint8 and int16 with negative values.
TEST(ReduceKernels, IntegerMinMaxPerChannelAndOverall) {
  std::mt19937 rng(3);
  for (int64_t c : {1, 2, 3, 4, 16, 17})
    for (int64_t pixels : {0, 1, 15, 16, 17, 33, 200}) {
      std::vector<uint8_t> u(static_cast<size_t>(pixels * c));
      std::vector<int16_t> s(u.size());
      for (size_t k = 0; k < u.size(); ++k) {
        u[k] = static_cast<uint8_t>(rng());
        s[k] = static_cast<int16_t>(rng());
      }
      const std::vector<int64_t> dims{pixels, c};
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{0}, std::vector<int64_t>{}}) {
        const ReducePlan plan = MakeReducePlan(dims, axes);
        const size_t n = static_cast<size_t>(plan.OutputSize());
        std::vector<uint8_t> umn(n), umx(n), ref_umn(n, 255), ref_umx(n, 0);
        std::vector<int16_t> smn(n), smx(n), ref_smn(n, INT16_MAX), ref_smx(n, INT16_MIN);
        ReduceMinMax<uint8_t>(plan, u, umn, false);
        ReduceMinMax<uint8_t>(plan, u, umx, true);
        ReduceMinMax<int16_t>(plan, s, smn, false);
        ReduceMinMax<int16_t>(plan, s, smx, true);
        for (size_t k = 0; k < u.size(); ++k) {
          const size_t o = axes.empty() ? 0 : k % static_cast<size_t>(c);
          ref_umn[o] = std::min(ref_umn[o], u[k]);
          ref_umx[o] = std::max(ref_umx[o], u[k]);
          ref_smn[o] = std::min(ref_smn[o], s[k]);
          ref_smx[o] = std::max(ref_smx[o], s[k]);
        }
        EXPECT_EQ(umn, ref_umn) << c << " " << pixels;
        EXPECT_EQ(umx, ref_umx) << c << " " << pixels;
        EXPECT_EQ(smn, ref_smn) << c << " " << pixels;
        EXPECT_EQ(smx, ref_smx) << c << " " << pixels;
      }
    }
}

TEST(ReduceKernels, EveryAxisCombinationMatchesReference) {
  const auto x = Data();
  const std::vector<int64_t> dims{A, B, C};
  for (int mask = 0; mask < 8; ++mask) {
    std::vector<int64_t> axes;
    for (int d = 0; d < 3; ++d)
      if (mask & (1 << d)) axes.push_back(d);
    const ReducePlan plan = MakeReducePlan(dims, axes);
    std::vector<bool> red = plan.reduced;
    const size_t n = static_cast<size_t>(plan.OutputSize());
    std::vector<int64_t> sum(n), ref_sum(n, 0);
    std::vector<int32_t> mn(n), mx(n), ref_mn(n, 1000), ref_mx(n, -1000);
    std::vector<double> sq(n), ref_sq(n, 0), dev(n), ref_dev(n, 0), mean(n);
    ReduceSum<int32_t, int64_t>(plan, x, sum);
    ReduceMinMax<int32_t>(plan, x, mn, false);
    ReduceMinMax<int32_t>(plan, x, mx, true);
    ReduceSumSquares<int32_t>(plan, x, sq);
    for (size_t o = 0; o < n; ++o) mean[o] = static_cast<double>(sum[o]) / static_cast<double>(plan.GroupSize());
    ReduceSumSquaredDeviations<int32_t>(plan, x, mean, dev);
    Reference(red, [&](int64_t i, int64_t o) {
      const auto v = x[static_cast<size_t>(i)];
      const size_t k = static_cast<size_t>(o);
      ref_sum[k] += v;
      ref_mn[k] = std::min(ref_mn[k], v);
      ref_mx[k] = std::max(ref_mx[k], v);
      ref_sq[k] += double(v) * v;
      ref_dev[k] += (v - mean[k]) * (v - mean[k]);
    });
    EXPECT_EQ(sum, ref_sum) << "mask " << mask;
    EXPECT_EQ(mn, ref_mn) << "mask " << mask;
    EXPECT_EQ(mx, ref_mx) << "mask " << mask;
    for (size_t o = 0; o < n; ++o) {
      EXPECT_DOUBLE_EQ(sq[o], ref_sq[o]);
      EXPECT_NEAR(dev[o], ref_dev[o], 1e-9);
    }
  }
}

// Axes are merged before looping (adjacent axes reduced alike, extent-1 axes dropped): every
// combination of reduced axes of a 6-D tensor with extent-1 axes here and there gives each element
// the output index a plain row-major walk gives it, in input order.
TEST(ReduceKernels, MergedAxesVisitEveryElementWithItsOutputIndex) {
  const std::vector<int64_t> dims{2, 1, 3, 4, 1, 5};
  const int nd = static_cast<int>(dims.size());
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  for (int mask = 0; mask < (1 << nd); ++mask) {
    std::vector<int64_t> axes;
    for (int d = 0; d < nd; ++d)
      if (mask & (1 << d)) axes.push_back(d);
    if (axes.empty()) continue;  // empty axes means all
    const ReducePlan plan = MakeReducePlan(dims, axes);
    std::vector<std::pair<int64_t, int64_t>> got, expected;
    ForEachReduced(plan, [&](int64_t i, int64_t o) { got.emplace_back(i, o); });
    std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
    for (int64_t i = 0; i < total; ++i) {
      int64_t o = 0;
      for (int d = 0; d < nd; ++d)
        if (!(mask & (1 << d))) o = o * dims[static_cast<size_t>(d)] + idx[static_cast<size_t>(d)];
      expected.emplace_back(i, o);
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
        idx[static_cast<size_t>(d)] = 0;
      }
    }
    EXPECT_EQ(got, expected) << "mask " << mask;
  }
  // A tensor of one element, reduced or not.
  const std::vector<int64_t> one{1, 1};
  std::vector<std::pair<int64_t, int64_t>> got;
  ForEachReduced(MakeReducePlan(one, std::vector<int64_t>{0}), [&](int64_t i, int64_t o) { got.emplace_back(i, o); });
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int64_t>>{{0, 0}}));
}

TEST(ReduceKernels, EmptyAxesReduceAllAndShapes) {
  const std::vector<int64_t> dims{A, B, C};
  const ReducePlan all = MakeReducePlan(dims, {});
  EXPECT_EQ(all.OutputSize(), 1);
  EXPECT_EQ(all.OutputDims(false), std::vector<int64_t>{});
  EXPECT_EQ(all.OutputDims(true), (std::vector<int64_t>{1, 1, 1}));
  const std::vector<int64_t> axes{-1, 0};
  const ReducePlan p = MakeReducePlan(dims, axes);
  EXPECT_EQ(p.OutputDims(false), (std::vector<int64_t>{B}));
  EXPECT_EQ(p.OutputDims(true), (std::vector<int64_t>{1, B, 1}));
  EXPECT_EQ(p.GroupSize(), A * C);
}

TEST(ReduceKernels, BadAxesThrow) {
  const std::vector<int64_t> dims{A, B};
  const std::vector<int64_t> out_of_range{2}, twice{1, -1};
  EXPECT_THROW(MakeReducePlan(dims, out_of_range), std::invalid_argument);
  EXPECT_THROW(MakeReducePlan(dims, twice), std::invalid_argument);
}

TEST(ReduceKernels, IntegerSumWrapsInItsAccumulator) {
  const std::vector<uint8_t> x{200, 100};
  const std::vector<int64_t> dims{2};
  const ReducePlan p = MakeReducePlan(dims, {});
  std::vector<uint8_t> narrow(1);
  std::vector<int64_t> wide(1);
  ReduceSum<uint8_t, uint8_t>(p, x, narrow);
  ReduceSum<uint8_t, int64_t>(p, x, wide);
  EXPECT_EQ(narrow[0], 44);  // 300 mod 256, as numpy's np.sum(x, dtype=np.uint8)
  EXPECT_EQ(wide[0], 300);
}

}  // namespace
}  // namespace sluice::kernels
