#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "kernels/crop/crop.h"
#include "kernels/crop/flip.h"
#include "kernels/tensor/cast.h"
#include "kernels/tensor/transpose.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

TEST(Flip, AllDirectionsAndElementSizes) {
  const int H = 5, W = 7;
  for (int C : {1, 3, 4}) {
    for (size_t es : {size_t(1), size_t(2), size_t(4), size_t(8)}) {
      const size_t px = size_t(C) * es;
      std::vector<uint8_t> in(size_t(H) * W * px), out(in.size());
      std::iota(in.begin(), in.end(), 0);
      for (int mode = 0; mode < 4; ++mode) {
        const bool hz = mode & 1, vt = mode & 2;
        Flip(in.data(), out.data(), H, W, C, es, hz, vt);
        for (int y = 0; y < H; ++y)
          for (int x = 0; x < W; ++x) {
            const int sy = vt ? H - 1 - y : y, sx = hz ? W - 1 - x : x;
            ASSERT_EQ(0, std::memcmp(&out[(size_t(y) * W + x) * px], &in[(size_t(sy) * W + sx) * px], px));
          }
      }
    }
  }
}

// Rows long enough for the vector path (16-byte and 16-pixel steps) and every remainder after it,
// against the pixel-by-pixel definition.
TEST(Flip, WideRowsEveryRemainder) {
  std::mt19937 rng(7);
  for (size_t px : {size_t(1), size_t(2), size_t(3), size_t(4), size_t(8), size_t(12)}) {
    for (int64_t w : {int64_t(1), int64_t(15), int64_t(16), int64_t(17), int64_t(31), int64_t(32), int64_t(33),
                      int64_t(47), int64_t(48), int64_t(50), int64_t(224), int64_t(225), int64_t(239)}) {
      const int64_t H = 2;
      std::vector<uint8_t> in(size_t(H * w) * px), out(in.size(), 0xEE);
      for (auto& v : in) v = uint8_t(rng());
      FlipVolume(in.data(), out.data(), FlipGeometry{1, 1, H, w, 1}, px, true, false, false);
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < w; ++x)
          ASSERT_EQ(0, std::memcmp(&out[size_t(y * w + x) * px], &in[size_t(y * w + w - 1 - x) * px], px))
              << "px " << px << " w " << w << " x " << x;
    }
  }
}

// Volumes: DHWC (outer 1, inner C) and CDHW (outer C, inner 1), every combination of the three flips.
TEST(Flip, VolumesAlongDepthHeightWidth) {
  const int64_t D = 3, H = 4, W = 5;
  for (bool channels_first : {false, true}) {
    const int64_t C = 2;
    const FlipGeometry g = channels_first ? FlipGeometry{C, D, H, W, 1} : FlipGeometry{1, D, H, W, C};
    std::vector<uint16_t> in(size_t(C * D * H * W)), out(in.size());
    std::iota(in.begin(), in.end(), 0);
    auto at = [&](const std::vector<uint16_t>& v, int64_t c, int64_t z, int64_t y, int64_t x) {
      return channels_first ? v[size_t(((c * D + z) * H + y) * W + x)] : v[size_t(((z * H + y) * W + x) * C + c)];
    };
    for (int mode = 0; mode < 8; ++mode) {
      const bool hz = mode & 1, vt = mode & 2, dw = mode & 4;
      FlipVolume(in.data(), out.data(), g, sizeof(uint16_t), hz, vt, dw);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t z = 0; z < D; ++z)
          for (int64_t y = 0; y < H; ++y)
            for (int64_t x = 0; x < W; ++x)
              ASSERT_EQ(at(out, c, z, y, x), at(in, c, dw ? D - 1 - z : z, vt ? H - 1 - y : y, hz ? W - 1 - x : x))
                  << "mode " << mode << " channels_first " << channels_first;
    }
  }
  uint8_t dummy = 0;
  EXPECT_THROW(FlipVolume(&dummy, nullptr, FlipGeometry{1, -1, 1, 1, 1}, 1, false, false, true), Error);
}

// Depth windows inside, partly outside and wholly outside the volume: slices outside take the fill.
TEST(Crop, VolumeWindowsAndFill) {
  const int64_t D = 4, H = 5, W = 6, C = 2;
  std::vector<int16_t> in(size_t(D * H * W * C));
  std::iota(in.begin(), in.end(), 1);
  const int16_t fill[2] = {-7, -9};
  for (int64_t z : {-2, 0, 1, 3, 5})
    for (int64_t x : {-1, 2}) {
      const int64_t d = 3, h = 3, w = 4, y = 1;
      std::vector<int16_t> out(size_t(d * h * w * C));
      CropVolume(in.data(), D, H, W, C, sizeof(int16_t), z, d, x, y, w, h, out.data(), fill);
      for (int64_t k = 0; k < d; ++k)
        for (int64_t r = 0; r < h; ++r)
          for (int64_t q = 0; q < w; ++q)
            for (int64_t c = 0; c < C; ++c) {
              const int64_t sz = z + k, sy = y + r, sx = x + q;
              const bool inside = sz >= 0 && sz < D && sy >= 0 && sy < H && sx >= 0 && sx < W;
              const int16_t want = inside ? in[size_t(((sz * H + sy) * W + sx) * C + c)] : fill[c];
              ASSERT_EQ(out[size_t(((k * h + r) * w + q) * C + c)], want) << "z " << z << " x " << x;
            }
    }
}

TEST(Transpose, ArbitraryPermutationsMatchNaive) {
  std::vector<int64_t> shape = {3, 4, 5, 2};
  std::vector<int> perm = {0, 1, 2, 3};
  const int64_t total = 3 * 4 * 5 * 2;
  std::vector<int32_t> in(total), out(total);
  std::iota(in.begin(), in.end(), 0);
  do {
    Transpose(in.data(), out.data(), shape, perm, sizeof(int32_t));
    int64_t os[4];
    TransposedShape(shape, perm, os);
    int64_t istr[4] = {4 * 5 * 2, 5 * 2, 2, 1};
    int64_t i = 0;
    for (int64_t a = 0; a < os[0]; ++a)
      for (int64_t b = 0; b < os[1]; ++b)
        for (int64_t c = 0; c < os[2]; ++c)
          for (int64_t d = 0; d < os[3]; ++d, ++i) {
            const int64_t idx[4] = {a, b, c, d};
            int64_t off = 0;
            for (int k = 0; k < 4; ++k) off += idx[k] * istr[perm[k]];
            ASSERT_EQ(out[size_t(i)], in[size_t(off)]);
          }
  } while (std::next_permutation(perm.begin(), perm.end()));
  EXPECT_THROW(Transpose(in.data(), out.data(), shape, std::vector<int>{0, 1, 1, 2}, 4), Error);
}

TEST(Transpose, HwcChwFastPathsRoundTrip) {
  for (size_t es : {size_t(1), size_t(2), size_t(4), size_t(3)}) {
    std::vector<int64_t> hwc = {6, 9, 3};
    std::vector<uint8_t> in(6 * 9 * 3 * es), chw(in.size()), back(in.size()), naive(in.size());
    std::iota(in.begin(), in.end(), 0);
    Transpose(in.data(), chw.data(), hwc, std::vector<int>{2, 0, 1}, es);
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 9; ++x)
        for (int c = 0; c < 3; ++c)
          std::memcpy(&naive[((size_t(c) * 6 + y) * 9 + x) * es], &in[((size_t(y) * 9 + x) * 3 + c) * es], es);
    EXPECT_EQ(chw, naive);
    Transpose(chw.data(), back.data(), std::vector<int64_t>{3, 6, 9}, std::vector<int>{1, 2, 0}, es);
    EXPECT_EQ(back, in);
  }
}

TEST(Cast, SaturationAndRounding) {
  const float f[] = {-1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 254.5f, 255.5f, 300.f, -300.f, NAN, INFINITY, -INFINITY};
  uint8_t u8[12];
  Cast(f, DType::kFloat32, u8, DType::kUInt8, 12);
  // Ties away from zero, as DALI 2.4's CPU cast: 0.5 -> 1, 2.5 -> 3, -1.5 -> -2.
  const uint8_t eu8[] = {0, 0, 1, 2, 3, 255, 255, 255, 0, 0, 255, 0};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(u8[i], eu8[i]) << i;
  int8_t i8[12];
  Cast(f, DType::kFloat32, i8, DType::kInt8, 12);
  const int8_t ei8[] = {-2, -1, 1, 2, 3, 127, 127, 127, -128, 0, 127, -128};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(i8[i], ei8[i]) << i;
  const double big[] = {1e30, -1e30, 9.3e18, 123.5};
  int64_t i64[4];
  Cast(big, DType::kFloat64, i64, DType::kInt64, 4);
  EXPECT_EQ(i64[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i64[1], std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64[2], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i64[3], 124);
  const int32_t ints[] = {-5, 70000, 200, -40000};
  uint16_t u16[4];
  Cast(ints, DType::kInt32, u16, DType::kUInt16, 4);
  EXPECT_EQ(u16[0], 0);
  EXPECT_EQ(u16[1], 65535);
  EXPECT_EQ(u16[2], 200);
  int16_t i16[4];
  Cast(ints, DType::kInt32, i16, DType::kInt16, 4);
  EXPECT_EQ(i16[1], 32767);
  EXPECT_EQ(i16[3], -32768);
  const uint16_t big16[] = {65535};
  int8_t s8;
  Cast(big16, DType::kUInt16, &s8, DType::kInt8, 1);
  EXPECT_EQ(s8, 127);
  const int64_t neg[] = {-1};
  uint64_t dummy = 0;
  uint8_t nu8;
  Cast(neg, DType::kInt64, &nu8, DType::kUInt8, 1);
  EXPECT_EQ(nu8, 0);
  (void)dummy;
  bool b[3];
  const float bf[] = {0.f, -0.1f, 2.f};
  Cast(bf, DType::kFloat32, b, DType::kBool, 3);
  EXPECT_FALSE(b[0]);
  EXPECT_TRUE(b[1]);
  EXPECT_TRUE(b[2]);
  float16 h[2];
  const float hf[] = {1.5f, 65504.f};
  Cast(hf, DType::kFloat32, h, DType::kFloat16, 2);
  float back[2];
  Cast(h, DType::kFloat16, back, DType::kFloat32, 2);
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], 65504.f);
  uint8_t hu[2];
  Cast(h, DType::kFloat16, hu, DType::kUInt8, 2);
  EXPECT_EQ(hu[0], 2);
  EXPECT_EQ(hu[1], 255);
}

// The vectorized float -> uint8 path (cast_hwy.cc) gives CastValue's bytes: ties, saturation, NaN,
// infinities, every fraction step near the edges, and lengths that leave tails of every size.
TEST(Cast, FloatToU8VectorPathEqualsScalarRule) {
  std::vector<float> f;
  for (int k = -2048; k <= 2048 * 130; ++k) f.push_back(k / 1024.0f);  // -2 .. 260 in 1/1024 steps
  const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 254.49998f, 254.5f, 0.49999997f,
                           -0.5f, 255.49998f, 255.5f, 3e9f, -3e9f, 1e-45f};
  for (float v : special) f.push_back(v);
  for (size_t n : {f.size(), size_t(1), size_t(7), size_t(31), size_t(33), size_t(100)}) {
    std::vector<uint8_t> out(n, 77);
    const size_t off = f.size() - n;  // the tail holds the special values
    Cast(f.data() + off, DType::kFloat32, out.data(), DType::kUInt8, n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], CastValue<uint8_t>(f[off + i])) << f[off + i] << " n=" << n;
  }
}

TEST(Cast, AllPairsCompileAndRoundTripSmallValues) {
  const DType all[] = {DType::kUInt8, DType::kInt8, DType::kUInt16, DType::kInt16, DType::kInt32,
                       DType::kInt64, DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kBool};
  const int32_t vals[] = {0, 1, 7, 100};
  for (DType a : all)
    for (DType b : all) {
      alignas(8) uint8_t src[64], mid[64];
      int32_t back[4];
      Cast(vals, DType::kInt32, src, a, 4);
      Cast(src, a, mid, b, 4);
      Cast(mid, b, back, DType::kInt32, 4);
      for (int i = 0; i < 4; ++i) {
        const bool is_bool = a == DType::kBool || b == DType::kBool;
        EXPECT_EQ(back[i], is_bool ? (vals[i] != 0) : vals[i]) << int(a) << "->" << int(b);
      }
    }
}

TEST(Crop, WindowWithOutOfBoundsFill) {
  const int H = 4, W = 5, C = 2;
  std::vector<uint16_t> in(size_t(H) * W * C);
  std::iota(in.begin(), in.end(), 1);
  const uint16_t fill[2] = {900, 901};
  std::vector<uint16_t> out(size_t(6) * 7 * C);
  Crop(in.data(), H, W, C, 2, -1, -1, 7, 6, out.data(), fill);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 7; ++x)
      for (int c = 0; c < C; ++c) {
        const int sy = y - 1, sx = x - 1;
        const bool in_img = sy >= 0 && sy < H && sx >= 0 && sx < W;
        EXPECT_EQ(out[(size_t(y) * 7 + x) * C + c], in_img ? in[(size_t(sy) * W + sx) * C + c] : fill[c]);
      }
  std::vector<uint16_t> z(4, 77);
  Crop(in.data(), H, W, C, 2, 10, 10, 2, 1, z.data());
  EXPECT_EQ(z, std::vector<uint16_t>(4, 0));
}

}  // namespace
}  // namespace sluice::kernels
