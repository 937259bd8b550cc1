// kernels::StridedCopy against a naive per-element loop: every combination of steps (positive,
// negative, zero for broadcasting) and windows over 1-D to 4-D arrays, element sizes 1 to 8.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/slice/strided_copy.h"

namespace sluice::kernels {
namespace {

std::vector<uint8_t> Naive(const std::vector<uint8_t>& in, const std::vector<int64_t>& in_shape, const std::vector<int64_t>& lo,
                           const std::vector<int64_t>& step, const std::vector<int64_t>& out_shape, size_t elem) {
  const size_t nd = in_shape.size();
  int64_t total = 1;
  for (int64_t e : out_shape) total *= e;
  std::vector<uint8_t> out(static_cast<size_t>(total) * elem);
  std::vector<int64_t> j(nd, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o, src = 0, stride = 1;
    for (size_t d = nd; d-- > 0;) {
      j[d] = rem % out_shape[d];
      rem /= out_shape[d];
    }
    for (size_t d = nd; d-- > 0;) {
      src += (lo[d] + j[d] * step[d]) * stride;
      stride *= in_shape[d];
    }
    std::memcpy(out.data() + static_cast<size_t>(o) * elem, in.data() + static_cast<size_t>(src) * elem, elem);
  }
  return out;
}

TEST(StridedCopy, MatchesTheNaiveLoop) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const size_t nd = 1 + rng() % 4;
    const size_t elem = size_t{1} << (rng() % 4);
    std::vector<int64_t> in_shape(nd), lo(nd), step(nd), out_shape(nd);
    int64_t n = 1;
    for (size_t d = 0; d < nd; ++d) {
      in_shape[d] = 1 + static_cast<int64_t>(rng() % 6);
      n *= in_shape[d];
      switch (rng() % 5) {
        case 0:  // whole
          lo[d] = 0, step[d] = 1, out_shape[d] = in_shape[d];
          break;
        case 1: {  // forward window, step 1..3
          step[d] = 1 + static_cast<int64_t>(rng() % 3);
          lo[d] = static_cast<int64_t>(rng() % static_cast<unsigned>(in_shape[d]));
          out_shape[d] = (in_shape[d] - 1 - lo[d]) / step[d] + 1;
          break;
        }
        case 2: {  // backward
          step[d] = -1 - static_cast<int64_t>(rng() % 2);
          lo[d] = static_cast<int64_t>(rng() % static_cast<unsigned>(in_shape[d]));
          out_shape[d] = lo[d] / -step[d] + 1;
          break;
        }
        case 3:  // broadcast a single element
          lo[d] = static_cast<int64_t>(rng() % static_cast<unsigned>(in_shape[d])), step[d] = 0,
          out_shape[d] = 1 + static_cast<int64_t>(rng() % 4);
          break;
        default:  // one element
          lo[d] = static_cast<int64_t>(rng() % static_cast<unsigned>(in_shape[d])), step[d] = 1, out_shape[d] = 1;
      }
    }
    std::vector<uint8_t> in(static_cast<size_t>(n) * elem);
    for (auto& b : in) b = static_cast<uint8_t>(rng());
    const std::vector<uint8_t> want = Naive(in, in_shape, lo, step, out_shape, elem);
    std::vector<uint8_t> got(want.size(), 0xCD);
    StridedCopy(in.data(), in_shape, lo, step, out_shape, got.data(), elem);
    ASSERT_EQ(got, want) << "trial " << trial;
  }
}

TEST(StridedCopy, EmptyWindowWritesNothing) {
  const std::vector<uint8_t> in = {1, 2, 3};
  std::vector<uint8_t> out = {9};
  const std::vector<int64_t> shape = {3}, lo = {0}, step = {1}, empty = {0};
  StridedCopy(in.data(), shape, lo, step, empty, out.data(), 1);
  EXPECT_EQ(out[0], 9);
}

}  // namespace
}  // namespace sluice::kernels
