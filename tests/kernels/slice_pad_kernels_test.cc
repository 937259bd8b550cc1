// kernels/slice: the N-D slice-with-padding kernel against a naive per-element reference (any
// rank, anchors before/after the input, per-channel fill, type conversion), and jitter's
// displacement range, border fill and determinism.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/slice/jitter.h"
#include "kernels/slice/slice_pad.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

int64_t Volume(const std::vector<int64_t>& s) {
  int64_t v = 1;
  for (auto x : s) v *= x;
  return v;
}

// out[idx] = in[anchor + idx] inside, else fill[idx[channel_dim] % nf].
template <typename Out, typename In>
std::vector<Out> Reference(const std::vector<In>& in, const SliceSpec& s, const std::vector<Out>& fill) {
  const size_t nd = s.in_shape.size();
  std::vector<Out> out(static_cast<size_t>(Volume(s.out_shape)));
  std::vector<int64_t> idx(nd, 0);
  for (size_t o = 0; o < out.size(); ++o) {
    int64_t rem = static_cast<int64_t>(o);
    for (size_t d = nd; d-- > 0;) {
      idx[d] = rem % s.out_shape[d];
      rem /= s.out_shape[d];
    }
    bool inside = true;
    int64_t flat = 0;
    for (size_t d = 0; d < nd; ++d) {
      const int64_t p = s.anchor[d] + idx[d];
      inside = inside && p >= 0 && p < s.in_shape[d];
      flat = flat * s.in_shape[d] + p;
    }
    if (inside) out[o] = ConvertSaturate<Out>(in[static_cast<size_t>(flat)]);
    else out[o] = fill[s.channel_dim >= 0 ? static_cast<size_t>(idx[static_cast<size_t>(s.channel_dim)]) % fill.size() : 0];
  }
  return out;
}

TEST(SlicePadKernel, MatchesReferenceForRandomWindows) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const int nd = 1 + trial % 4;
    SliceSpec s;
    for (int d = 0; d < nd; ++d) {
      const int64_t m = 1 + static_cast<int64_t>(rng() % 7);
      s.in_shape.push_back(m);
      s.anchor.push_back(static_cast<int64_t>(rng() % 13) - 5);
      s.out_shape.push_back(static_cast<int64_t>(rng() % 9));
    }
    std::vector<float> fill = {-1.f};
    if (trial % 3 == 0) {
      s.channel_dim = static_cast<int>(rng() % static_cast<unsigned>(nd));
      fill = {-1.f, -2.f, -3.f};
    }
    std::vector<uint8_t> in(static_cast<size_t>(Volume(s.in_shape)));
    for (auto& v : in) v = static_cast<uint8_t>(rng());
    std::vector<float> out(static_cast<size_t>(Volume(s.out_shape)), 99.f);
    SlicePad<float, uint8_t>(in.data(), out.data(), s, std::span<const float>(fill));
    EXPECT_EQ(out, Reference(in, s, fill)) << "trial " << trial;
  }
}

TEST(SlicePadKernel, SameTypeCopyAndSaturatingConversion) {
  SliceSpec s{{2, 3}, {0, 1}, {2, 3}, -1};
  const std::vector<float> in = {-5.f, 1.4f, 2.5f, 300.f, 3.5f, 7.f};
  std::vector<uint8_t> out(6);
  const uint8_t fill = 9;
  SlicePad<uint8_t, float>(in.data(), out.data(), s, std::span<const uint8_t>(&fill, 1));
  // Columns 1, 2 of the input, then one padded column; 2.5 -> 2 (ties to even), 300 -> 255.
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 9, 4, 7, 9}));
  std::vector<float> same(6);
  const float ff = 0.5f;
  SlicePad<float, float>(in.data(), same.data(), SliceSpec{{2, 3}, {-1, 0}, {2, 3}, -1}, std::span<const float>(&ff, 1));
  EXPECT_EQ(same, (std::vector<float>{0.5f, 0.5f, 0.5f, -5.f, 1.4f, 2.5f}));
}

TEST(SlicePadKernel, PerChannelFillOfAnHwcImage) {
  // A 2x2 RGB image pasted at (1, 1) on a 3x4 canvas.
  std::vector<uint8_t> in(12);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(100 + i);
  SliceSpec s{{2, 2, 3}, {-1, -1, 0}, {3, 4, 3}, 2};
  const std::vector<uint8_t> fill = {1, 2, 3};
  std::vector<uint8_t> out(36);
  SlicePad<uint8_t, uint8_t>(in.data(), out.data(), s, std::span<const uint8_t>(fill));
  EXPECT_EQ(out, Reference(in, s, fill));
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[2], 3);
  EXPECT_EQ(out[(1 * 4 + 1) * 3], 100);
}

TEST(SlicePadKernel, RejectsBadSpecs) {
  std::vector<uint8_t> in(4), out(4);
  const uint8_t f = 0;
  EXPECT_THROW((SlicePad<uint8_t, uint8_t>(in.data(), out.data(), SliceSpec{{2, 2}, {0}, {2, 2}, -1}, std::span<const uint8_t>(&f, 1))), Error);
  EXPECT_THROW((SlicePad<uint8_t, uint8_t>(in.data(), out.data(), SliceSpec{{2, 2}, {0, 0}, {2, -1}, -1}, std::span<const uint8_t>(&f, 1))), Error);
  EXPECT_THROW((SlicePad<uint8_t, uint8_t>(in.data(), out.data(), SliceSpec{{2, 2}, {0, 0}, {2, 2}, -1}, std::span<const uint8_t>())), Error);
}

TEST(JitterKernel, DisplacementRangeBorderFillAndDeterminism) {
  const int64_t h = 20, w = 30;
  // Two channels: x and y of the pixel.
  std::vector<uint8_t> in(static_cast<size_t>(h * w * 2));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      in[static_cast<size_t>((y * w + x) * 2)] = static_cast<uint8_t>(x);
      in[static_cast<size_t>((y * w + x) * 2 + 1)] = static_cast<uint8_t>(y);
    }
  for (int degree : {1, 2, 3, 5}) {
    std::mt19937_64 r1(11), r2(11);
    std::vector<uint8_t> a(in.size()), b(in.size());
    Jitter<uint8_t>(in.data(), a.data(), h, w, 2, degree, 255, [&] { return r1(); });
    Jitter<uint8_t>(in.data(), b.data(), h, w, 2, degree, 255, [&] { return r2(); });
    EXPECT_EQ(a, b);
    const int lo = -(degree / 2), hi = degree - 1 - degree / 2;
    int seen_lo = 0, seen_hi = 0, fills = 0;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x) {
        const uint8_t* p = &a[static_cast<size_t>((y * w + x) * 2)];
        if (p[0] == 255) {  // displaced past the right or bottom edge
          EXPECT_EQ(p[1], 255);
          EXPECT_TRUE(x + hi >= w || y + hi >= h) << x << "," << y;
          ++fills;
          continue;
        }
        const int dx = p[0] - static_cast<int>(x), dy = p[1] - static_cast<int>(y);
        // Clamped at the left/top edge, so a negative displacement there may read 0.
        EXPECT_LE(dx, hi);
        EXPECT_LE(dy, hi);
        if (x + lo >= 0) EXPECT_GE(dx, lo);
        if (y + lo >= 0) EXPECT_GE(dy, lo);
        seen_lo += dx == lo;
        seen_hi += dx == hi;
      }
    if (degree == 1) {
      EXPECT_EQ(a, in);
    } else {
      EXPECT_GT(seen_lo, 0);
      EXPECT_GT(seen_hi, 0);
    }
    if (hi == 0) EXPECT_EQ(fills, 0);
  }
}

}  // namespace
}  // namespace sluice::kernels
