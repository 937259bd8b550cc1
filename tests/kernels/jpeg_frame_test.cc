// ParseJpegFrame on real files (tests/data/images, made by Pillow) and on JPEGs TurboJPEG encodes
// here at every chroma subsampling; truncated and corrupted headers give nullopt, never a crash.
#include <gtest/gtest.h>
#include <turbojpeg.h>

#include "kernels/decode/jpeg_frame.h"
#include "kernels_test_util.h"

namespace sluice::kernels {
namespace {

using testing::ReadImage;

std::vector<uint8_t> Encode(int w, int h, int subsamp, int flags = 0) {
  std::vector<uint8_t> rgb(size_t(w) * h * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>(i * 7 + i / 3);
  tjhandle c = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  const int pf = subsamp == TJSAMP_GRAY ? TJPF_RGB : TJPF_RGB;
  EXPECT_EQ(tjCompress2(c, rgb.data(), w, 0, h, pf, &buf, &size, subsamp, 90, flags), 0) << tjGetErrorStr2(c);
  std::vector<uint8_t> out(buf, buf + size);
  tjFree(buf);
  tjDestroy(c);
  return out;
}

TEST(JpegFrame, RealFiles) {
  auto photo = ParseJpegFrame(ReadImage("photo_500x375.jpg"));
  ASSERT_TRUE(photo);
  EXPECT_EQ(photo->sof, 0xC0);
  EXPECT_TRUE(photo->huffman_sequential());
  EXPECT_EQ(photo->precision, 8);
  EXPECT_EQ(photo->width, 500);
  EXPECT_EQ(photo->height, 375);
  ASSERT_EQ(photo->components.size(), 3u);
  EXPECT_EQ(photo->components[0].h, 2);
  EXPECT_EQ(photo->components[0].v, 2);
  EXPECT_EQ(photo->subsampling(), ChromaSubsampling::k420);

  auto prog = ParseJpegFrame(ReadImage("progressive.jpg"));
  ASSERT_TRUE(prog);
  EXPECT_TRUE(prog->progressive());
  EXPECT_FALSE(prog->huffman_sequential());

  auto gray = ParseJpegFrame(ReadImage("gray.jpg"));
  ASSERT_TRUE(gray);
  EXPECT_EQ(gray->subsampling(), ChromaSubsampling::kGray);

  auto cmyk = ParseJpegFrame(ReadImage("cmyk.jpg"));
  ASSERT_TRUE(cmyk);
  EXPECT_EQ(cmyk->components.size(), 4u);
  EXPECT_EQ(cmyk->subsampling(), ChromaSubsampling::kOther);

  EXPECT_EQ(ParseJpegFrame(ReadImage("s422.jpg"))->subsampling(), ChromaSubsampling::k422);
  EXPECT_EQ(ParseJpegFrame(ReadImage("s444.jpg"))->subsampling(), ChromaSubsampling::k444);
  // EXIF (APP1) before the frame header is skipped.
  EXPECT_EQ(ParseJpegFrame(ReadImage("orient_6.jpg"))->width, 32);
}

TEST(JpegFrame, EverySubsamplingTurboJpegWrites) {
  const std::pair<int, ChromaSubsampling> cases[] = {
      {TJSAMP_444, ChromaSubsampling::k444}, {TJSAMP_422, ChromaSubsampling::k422},
      {TJSAMP_420, ChromaSubsampling::k420}, {TJSAMP_440, ChromaSubsampling::k440},
      {TJSAMP_411, ChromaSubsampling::k411}, {TJSAMP_GRAY, ChromaSubsampling::kGray}};
  for (const auto& [tj, expected] : cases) {
    auto f = ParseJpegFrame(Encode(67, 45, tj));
    ASSERT_TRUE(f) << tj;
    EXPECT_EQ(f->subsampling(), expected) << ToString(expected);
    EXPECT_EQ(f->width, 67);
    EXPECT_EQ(f->height, 45);
  }
  auto prog = ParseJpegFrame(Encode(64, 64, TJSAMP_420, TJFLAG_PROGRESSIVE));
  ASSERT_TRUE(prog);
  EXPECT_EQ(prog->sof, 0xC2);
}

TEST(JpegFrame, TruncatedOrCorruptHeadersAreNullopt) {
  const std::vector<uint8_t> photo = ReadImage("photo_500x375.jpg");
  // Find where the frame header ends: every shorter prefix must fail cleanly.
  size_t sof_end = 0;
  for (size_t i = 2; i + 3 < photo.size(); ++i)
    if (photo[i] == 0xFF && photo[i + 1] == 0xC0) {
      sof_end = i + 2 + (size_t(photo[i + 2]) << 8 | photo[i + 3]);
      break;
    }
  ASSERT_GT(sof_end, 0u);
  for (size_t n = 0; n < sof_end; ++n)
    EXPECT_FALSE(ParseJpegFrame(std::span<const uint8_t>(photo.data(), n))) << "prefix of " << n << " bytes";
  EXPECT_TRUE(ParseJpegFrame(std::span<const uint8_t>(photo.data(), sof_end)));

  EXPECT_FALSE(ParseJpegFrame(ReadImage("gray.png")));  // not a JPEG
  std::vector<uint8_t> bad = photo;
  bad[2] = 0x00;  // the first marker is not a marker
  EXPECT_FALSE(ParseJpegFrame(bad));
  std::vector<uint8_t> zero_factor = photo;
  for (size_t i = 2; i + 3 < zero_factor.size(); ++i)
    if (zero_factor[i] == 0xFF && zero_factor[i + 1] == 0xC0) {
      zero_factor[i + 2 + 2 + 6 + 1] = 0x00;  // first component's sampling factors 0x0
      break;
    }
  EXPECT_FALSE(ParseJpegFrame(zero_factor));
}

}  // namespace
}  // namespace sluice::kernels
