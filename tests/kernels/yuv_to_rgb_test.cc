// kernels/video/yuv_to_rgb.h against DALI 2.4's own conversion: the expected bytes were produced by
// the libswscale 10 that DALI 2.4 bundles (loaded by ctypes, sws_getContext with DALI's flags
// SWS_BILINEAR | SWS_FULL_CHR_H_INT | SWS_ACCURATE_RND, the call FramesDecoderCpu makes) on these
// planes: odd sizes (chroma taps that drift along the row), limited and full range, RGB and YCbCr,
// and the 32-bit wrap-around that makes the blue of a saturated pixel 0. Whole videos are compared
// with DALI's decoder in python/tests/test_dali_goldens_video.py. The vector rows are checked
// against the scalar reference on every Highway target.
#include <gtest/gtest.h>

#include <cstdint>
#include <hwy/targets.h>
#include <random>
#include <vector>

extern "C" {
#include <libavutil/pixfmt.h>
}

#include "kernels/video/yuv_to_rgb.h"

namespace sluice::kernels {
namespace {

struct Case {
  int format, width, height;
  bool ycbcr;
  std::vector<uint8_t> y, u, v, expected;
};

std::vector<uint8_t> Convert(const Case& c, DaliYuvConverter& conv) {
  YuvLayout layout;
  EXPECT_TRUE(YuvLayout::For(c.format, &layout));
  const int cw = -((-c.width) >> layout.log2_chroma_w);
  YuvFrame f;
  f.plane[0] = c.y.data();
  f.plane[1] = c.u.data();
  f.plane[2] = c.v.data();
  f.stride[0] = c.width;
  f.stride[1] = f.stride[2] = cw;
  f.width = c.width;
  f.height = c.height;
  std::vector<uint8_t> out(static_cast<size_t>(c.width) * static_cast<size_t>(c.height) * 3);
  conv.Convert(f, layout, c.ycbcr, out.data());
  return out;
}

const std::vector<uint8_t> kY7x5 = {0,   37,  74,  111, 148, 185, 222, 77,  123, 169, 215, 5,   51, 97, 154, 209, 8,  63,
                                    118, 173, 228, 231, 39,  103, 167, 231, 178, 242, 52,  125, 198, 15, 227, 44, 117};
const std::vector<uint8_t> kU4x3 = {0, 53, 106, 159, 203, 9, 71, 133, 150, 221, 36, 107};
const std::vector<uint8_t> kV4x3 = {0, 71, 142, 213, 35, 115, 195, 19, 70, 159, 248, 81};

TEST(YuvToRgb, MatchesDaliLibswscale) {
  const std::vector<Case> cases = {
      {AV_PIX_FMT_YUV420P, 7, 5, false, kY7x5, kU4x3, kV4x3,
       {0,   136, 0,   0,   151, 0,   0,   149, 0,   76,  147, 13,  184, 145, 117, 255, 144, 221, 255, 159, 255,
        0,   225, 0,   0,   251, 0,   79,  255, 19,  197, 255, 134, 18,  0,   0,   136, 0,   65,  230, 13,  157,
        12,  207, 255, 122, 255, 236, 0,   47,  0,   98,  67,  0,   206, 95,  13,  109, 227, 148, 73,  255, 255,
        158, 255, 255, 0,   30,  122, 141, 47,  255, 255, 114, 177, 255, 197, 75,  209, 197, 95,  188, 255, 221,
        0,   80,  86,  85,  130, 222, 251, 157, 255, 119, 0,   0,   255, 192, 70,  53,  40,  0,   43,  164, 75}},
      {AV_PIX_FMT_YUVJ422P, 5, 3, false,
       {0, 37, 74, 111, 148, 77, 123, 169, 215, 5, 154, 209, 8, 63, 118},
       {0, 53, 106, 203, 9, 71, 150, 221, 36},
       {0, 71, 142, 35, 115, 195, 70, 159, 248},
       {0, 135, 0,   0,   172, 0,   0,   141, 0,  131, 109, 72,  168, 146, 109, 0,   118, 210, 0,   164, 255, 151, 219,
        0, 255, 187, 114, 99,  0,   0,   73,  188, 193, 128, 243, 248, 51,  0,   173, 231, 9,   0,   255, 64,  0}},
      {AV_PIX_FMT_YUV420P, 7, 5, true, kY7x5, kU4x3, kV4x3,
       {0,   0,   0,   37,  19,  25,  74,  49,  66,  111, 80,  107, 148, 110, 147, 185, 140, 188, 222, 159, 213,
        77,  0,   0,   123, 19,  25,  169, 49,  66,  215, 80,  107, 5,   110, 147, 51,  140, 188, 97,  159, 213,
        154, 203, 35,  209, 134, 64,  8,   23,  109, 63,  40,  155, 118, 75,  182, 173, 111, 82,  228, 133, 19,
        231, 150, 70,  39,  175, 102, 103, 216, 153, 167, 129, 204, 231, 41,  236, 178, 82,  141, 242, 107, 81,
        52,  150, 70,  125, 175, 102, 198, 216, 153, 15,  129, 204, 227, 41,  236, 44,  82,  141, 117, 107, 81}},
      // Y = Cb = 255 at limited range: libswscale's blue sum passes 2^31 and wraps to 0 (DALI's too).
      {AV_PIX_FMT_YUV420P, 2, 2, false, {255, 255, 255, 255}, {255}, {128},
       {255, 229, 0, 255, 229, 0, 255, 229, 0, 255, 229, 0}},
  };
  DaliYuvConverter conv;  // one converter through every size: its cached filters follow the frame
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(Convert(cases[i], conv), cases[i].expected) << "case " << i;
}

// The Highway rows (yuv_to_rgb_hwy.cc) against the scalar reference, on every compiled target the
// machine runs: random planes (padded strides) of every layout, RGB at both ranges and YCbCr, odd
// sizes (drifting chroma taps, vector tails, one-row and one-column frames), and planes drawn from
// the extremes too, where the blue sum's 32-bit wrap-around and the clipping are reached.
TEST(YuvToRgb, VectorRowsMatchScalarReference) {
  const int formats[] = {AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,  AV_PIX_FMT_YUV440P,
                         AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
                         AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P};
  const int sizes[][2] = {{1, 1}, {2, 3}, {5, 1}, {1, 7}, {7, 5}, {17, 9}, {33, 31}, {67, 18}, {130, 41}};
  const auto targets = hwy::SupportedAndGeneratedTargets();
  EXPECT_GE(targets.size(), 2u);
  std::mt19937 rng(7);
  const uint8_t extremes[] = {0, 1, 16, 127, 128, 235, 240, 254, 255};
  for (const int fmt : formats) {
    YuvLayout l;
    ASSERT_TRUE(YuvLayout::For(fmt, &l));
    for (const auto& wh : sizes) {
      const int w = wh[0], h = wh[1];
      const int cw = -((-w) >> l.log2_chroma_w), ch = -((-h) >> l.log2_chroma_h);
      for (int fill = 0; fill < 2; ++fill) {
        const int strides[3] = {w + 3, cw + 5, cw + 1};
        std::vector<uint8_t> planes[3];
        YuvFrame f;
        for (int p = 0; p < 3; ++p) {
          planes[p].resize(static_cast<size_t>(strides[p]) * static_cast<size_t>(p == 0 ? h : ch));
          for (auto& b : planes[p]) b = fill == 0 ? static_cast<uint8_t>(rng()) : extremes[rng() % 9];
          f.plane[p] = planes[p].data();
          f.stride[p] = strides[p];
        }
        f.width = w;
        f.height = h;
        for (const bool ycbcr : {false, true}) {
          if (ycbcr && l.full_range) continue;  // not taken: left to libswscale
          DaliYuvConverter conv;
          std::vector<uint8_t> expected(static_cast<size_t>(w) * static_cast<size_t>(h) * 3);
          conv.ConvertReference(f, l, ycbcr, expected.data());
          for (const int64_t target : targets) {
            hwy::SetSupportedTargetsForTest(target);
            std::vector<uint8_t> out(expected.size(), 77);
            conv.Convert(f, l, ycbcr, out.data());
            EXPECT_EQ(out, expected) << "format " << fmt << ", " << w << "x" << h << ", ycbcr " << ycbcr
                                     << ", fill " << fill << ", " << hwy::TargetName(target);
          }
          hwy::SetSupportedTargetsForTest(0);
        }
      }
    }
  }
}

TEST(YuvToRgb, TakesPlanarEightBitFormatsOnly) {
  YuvLayout l;
  EXPECT_TRUE(YuvLayout::For(AV_PIX_FMT_YUVJ420P, &l));
  EXPECT_TRUE(l.full_range);
  EXPECT_TRUE(YuvLayout::For(AV_PIX_FMT_YUV410P, &l));
  EXPECT_EQ(l.log2_chroma_w, 2);
  EXPECT_FALSE(YuvLayout::For(AV_PIX_FMT_NV12, &l));
  EXPECT_FALSE(YuvLayout::For(AV_PIX_FMT_YUV420P10LE, &l));
  EXPECT_FALSE(YuvLayout::For(AV_PIX_FMT_RGB24, &l));
}

}  // namespace
}  // namespace sluice::kernels
