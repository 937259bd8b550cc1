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

}  // namespace
}  // namespace sluice::kernels
