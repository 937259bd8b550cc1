#include <gtest/gtest.h>

#include "kernels/decode/image_decoder.h"
#include "kernels_test_util.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {
using namespace testing;

TEST(DetectFormat, MagicBytes) {
  EXPECT_EQ(DetectFormat(ReadImage("s420.jpg")), ImageFormat::kJpeg);
  EXPECT_EQ(DetectFormat(ReadImage("rgb.png")), ImageFormat::kPng);
  EXPECT_EQ(DetectFormat(ReadImage("rgb_lossless.webp")), ImageFormat::kWebP);
  EXPECT_EQ(DetectFormat(ReadImage("rgb24.bmp")), ImageFormat::kBmp);
  EXPECT_EQ(DetectFormat(ReadImage("rgb.ppm")), ImageFormat::kPnm);
  EXPECT_EQ(DetectFormat(ReadImage("gray_ascii.pgm")), ImageFormat::kPnm);
  const uint8_t tiff[] = {'I', 'I', '*', 0, 8, 0, 0, 0};
  EXPECT_EQ(DetectFormat(tiff), ImageFormat::kTiff);
  try {
    PeekImage(tiff);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported format TIFF"), std::string::npos);
  }
  const uint8_t junk[] = {1, 2, 3, 4, 5};
  EXPECT_EQ(DetectFormat(junk), ImageFormat::kUnknown);
  EXPECT_THROW(PeekImage(junk), Error);
}

TEST(DecodeFormats, LosslessFormatsAgree) {
  Image png = Decode(ReadImage("rgb.png"));
  ASSERT_EQ(png.w, 37);
  ASSERT_EQ(png.h, 29);
  ASSERT_EQ(png.c, 3);
  for (const char* name : {"rgb_lossless.webp", "rgb24.bmp", "rgba32.bmp", "rgb.ppm", "rgb_ascii.ppm", "rgba.png"}) {
    Image o = Decode(ReadImage(name));
    ASSERT_EQ(o.w, 37) << name;
    ASSERT_EQ(o.h, 29) << name;
    EXPECT_EQ(o.data, png.data) << name;
  }
  // RGB -> gray uses BT.601 with libjpeg/Pillow fixed-point constants: equals Pillow's convert("L").
  DecodeParams gp;
  gp.output_type = OutputColor::kGray;
  Image gray_ref = Decode(ReadImage("gray.png"), gp);
  EXPECT_EQ(gray_ref.c, 1);
  EXPECT_EQ(Decode(ReadImage("rgb.png"), gp).data, gray_ref.data);
  for (const char* name : {"gray.pgm", "gray_ascii.pgm", "gray8.bmp", "gray16.png"})
    EXPECT_EQ(Decode(ReadImage(name), gp).data, gray_ref.data) << name;
  // Lossy WebP is close.
  EXPECT_LT(MeanAbsDiff(Decode(ReadImage("rgb_lossy.webp")).data, png.data), 12.0);
}

TEST(DecodeFormats, AnyDataChannels) {
  DecodeParams p;
  p.output_type = OutputColor::kAnyData;
  EXPECT_EQ(Decode(ReadImage("rgb.png"), p).c, 3);
  EXPECT_EQ(Decode(ReadImage("rgba.png"), p).c, 4);
  EXPECT_EQ(Decode(ReadImage("gray.png"), p).c, 1);
  EXPECT_EQ(Decode(ReadImage("gray_alpha.png"), p).c, 2);
  EXPECT_EQ(Decode(ReadImage("palette.png"), p).c, 3);
  EXPECT_EQ(Decode(ReadImage("gray16.png"), p).c, 1);
  EXPECT_EQ(Decode(ReadImage("rgba_lossless.webp"), p).c, 4);
  EXPECT_EQ(Decode(ReadImage("gray8.bmp"), p).c, 1);
  EXPECT_EQ(Decode(ReadImage("palette8.bmp"), p).c, 3);
  EXPECT_EQ(Decode(ReadImage("gray.pgm"), p).c, 1);
  EXPECT_EQ(Decode(ReadImage("rgba_lossless.webp"), p).data, Decode(ReadImage("rgba.png"), p).data);
  // Alpha channel is the one Pillow wrote: 7 * x.
  Image rgba = Decode(ReadImage("rgba.png"), p);
  for (int x = 0; x < rgba.w; ++x) EXPECT_EQ(rgba.at(3, x, 3), uint8_t(7 * x));
  // The paletted BMP and PNG hold the same quantized picture.
  EXPECT_EQ(Decode(ReadImage("palette8.bmp")).data, Decode(ReadImage("palette.png")).data);
  DecodeParams bgr;
  bgr.output_type = OutputColor::kBGR;
  Image b = Decode(ReadImage("rgb.png"), bgr), r = Decode(ReadImage("rgb.png"));
  for (size_t i = 0; i < r.data.size(); i += 3) {
    ASSERT_EQ(b.data[i], r.data[i + 2]);
    ASSERT_EQ(b.data[i + 2], r.data[i]);
  }
}

TEST(DecodeFormats, RoiIsCropOfFullDecode) {
  for (const char* name : {"rgb.png", "rgba_lossless.webp", "rgb24.bmp", "gray.pgm"}) {
    auto bytes = ReadImage(name);
    Image full = Decode(bytes);
    DecodeParams p;
    p.roi = CropWindow{3, 4, 20, 11};
    p.target_width = 5;  // ignored for non-JPEG
    Image roi = Decode(bytes, p);
    EXPECT_EQ(roi.data, Crop(full, 3, 4, 20, 11).data) << name;
  }
}

TEST(DecodeFormats, CorruptInputsThrow) {
  for (const char* name : {"rgb.png", "rgb_lossless.webp", "rgb24.bmp", "rgb.ppm", "gray_ascii.pgm", "palette8.bmp"}) {
    auto bytes = ReadImage(name);
    for (size_t keep : {size_t(3), size_t(20), size_t(40), bytes.size() / 2, bytes.size() - 20}) {
      std::vector<uint8_t> t(bytes.begin(), bytes.begin() + std::min(keep, bytes.size()));
      EXPECT_THROW(Decode(t), Error) << name << " truncated to " << keep;
    }
    // Random corruption must not crash (it may still decode).
    for (size_t at = 8; at < bytes.size(); at += 61) {
      auto bad = bytes;
      bad[at] ^= 0x5A;
      try { Decode(bad); } catch (const Error&) {}
    }
  }
  const std::string ppm = "P6\n100000 100000\n255\n";
  DecodeParams small;
  small.max_pixels = 1 << 20;
  EXPECT_THROW(Decode(std::vector<uint8_t>(ppm.begin(), ppm.end()), small), Error);
  const std::string pbm = "P4\n8 8\n";
  EXPECT_THROW(Decode(std::vector<uint8_t>(pbm.begin(), pbm.end())), Error);
}

std::vector<uint8_t> Bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

TEST(DecodeFormats, PnmMaxvalAndSixteenBit) {
  // 2x1 P5 with maxval 1000, 16-bit big-endian samples 0 and 1000 -> 0 and 255.
  std::string p5 = "P5\n# c\n2 1\n1000\n";
  p5 += std::string("\x00\x00\x03\xe8", 4);
  Image g = Decode(Bytes(p5));
  ASSERT_EQ(g.c, 3);
  EXPECT_EQ(g.at(0, 0, 0), 0);
  EXPECT_EQ(g.at(0, 1, 1), 255);
  // ASCII with maxval 3: 0 1 2 3 -> 0 85 170 255.
  DecodeParams gp;
  gp.output_type = OutputColor::kAnyData;
  Image a = Decode(Bytes("P2 4 1 3\n0 1 2 3\n"), gp);
  ASSERT_EQ(a.c, 1);
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 85, 170, 255}));
  EXPECT_THROW(Decode(Bytes("P2 4 1 3\n0 1 2 4\n")), Error);  // sample > maxval
  EXPECT_THROW(Decode(Bytes("P5 4 1 0\n....")), Error);        // maxval 0
  EXPECT_THROW(Decode(Bytes("P6 -4 1 255\n")), Error);
}

TEST(DecodeFormats, BmpTopDownAndBitfields) {
  // 2x2, 32-bit BI_BITFIELDS with standard masks, top-down (negative height).
  std::vector<uint8_t> b(14 + 40 + 12 + 16, 0);
  auto put32 = [&](size_t at, uint32_t v) { for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i)); };
  b[0] = 'B'; b[1] = 'M';
  put32(2, uint32_t(b.size()));
  put32(10, 14 + 40 + 12);
  put32(14, 40);
  put32(18, 2);
  put32(22, uint32_t(-2));
  b[26] = 1;
  b[28] = 32;
  put32(30, 3);
  put32(54, 0xFF0000); put32(58, 0xFF00); put32(62, 0xFF);
  const uint8_t px[16] = {1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0};  // BGRX
  std::copy(px, px + 16, b.begin() + 66);
  Image img = Decode(b);
  ASSERT_EQ(img.w, 2);
  ASSERT_EQ(img.h, 2);
  EXPECT_EQ(img.data, (std::vector<uint8_t>{3, 2, 1, 6, 5, 4, 9, 8, 7, 12, 11, 10}));
  put32(62, 0xFF000000);  // non-standard masks are rejected
  EXPECT_THROW(Decode(b), Error);
}

}  // namespace
}  // namespace sluice::kernels
