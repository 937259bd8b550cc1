// kernels/video/video_decode.h on the seed videos of fuzz/video_seeds/ (H.264 in MP4 and MPEG-TS,
// HEVC, VP9, MPEG-4 in AVI, AV1): the index (frame count, timestamps), memory and file sources
// alike, exact seeking (each frame decoded on its own, after a seek, equals the same frame of one
// decode from the start, in every color space), and the errors of bad input. Pixel values are
// checked against PyAV in python/tests/test_video_decode.py. Skipped without FFmpeg's libraries.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "kernels/kernels_test_util.h"
#include "kernels/video/ffmpeg_library.h"
#include "kernels/video/video_decode.h"

namespace sluice::kernels {
namespace {

std::string Seed(const std::string& name) { return std::string(SLUICE_SOURCE_DIR) + "/fuzz/video_seeds/" + name; }

#define SKIP_WITHOUT_FFMPEG()                                  \
  do {                                                         \
    std::string why;                                           \
    if (!FfmpegAvailable(&why)) GTEST_SKIP() << why;           \
  } while (0)

std::vector<uint8_t> DecodeAll(VideoDecoder& d, const std::vector<int64_t>& frames, VideoColor color) {
  const VideoIndex& idx = d.Index();
  const size_t bytes = size_t(idx.width) * size_t(idx.height) * size_t(VideoChannels(color));
  std::vector<uint8_t> out(bytes * frames.size());
  d.Decode(frames, color, [&](size_t i) { return out.data() + i * bytes; });
  return out;
}

struct SeedCase {
  const char* file;
  int64_t frames;
  int width, height;
  const char* codec;
};

class VideoSeeds : public ::testing::TestWithParam<SeedCase> {};

TEST_P(VideoSeeds, IndexAndExactSeeking) {
  SKIP_WITHOUT_FFMPEG();
  const SeedCase& c = GetParam();
  const std::vector<uint8_t> bytes = testing::ReadFile(Seed(c.file));
  auto mem = VideoDecoder::FromMemory(bytes, kDefaultMaxVideoFramePixels);
  auto file = VideoDecoder::FromFile(Seed(c.file), kDefaultMaxVideoFramePixels);
  const VideoIndex& idx = mem->Index();
  EXPECT_EQ(idx.frames, c.frames);
  EXPECT_EQ(idx.width, c.width);
  EXPECT_EQ(idx.height, c.height);
  EXPECT_EQ(idx.codec, c.codec);
  EXPECT_EQ(file->Index().frames, idx.frames);
  EXPECT_EQ(file->Index().pts, idx.pts);
  std::vector<int64_t> all;
  for (int64_t f = 0; f < idx.frames; ++f) all.push_back(f);
  for (VideoColor color : {VideoColor::kRGB, VideoColor::kGray, VideoColor::kYCbCr}) {
    const std::vector<uint8_t> whole = DecodeAll(*mem, all, color);
    EXPECT_EQ(DecodeAll(*file, all, color), whole);
    const size_t bytes_per_frame = whole.size() / all.size();
    // Backwards, one frame at a time: every decode seeks.
    for (int64_t f = idx.frames - 1; f >= 0; --f) {
      const std::vector<uint8_t> one = DecodeAll(*mem, {f}, color);
      ASSERT_TRUE(std::equal(one.begin(), one.end(), whole.begin() + static_cast<std::ptrdiff_t>(f * bytes_per_frame)))
          << c.file << " frame " << f;
    }
  }
  // A decoder reused with an index it was given (the reader's way).
  auto again = VideoDecoder::FromMemory(bytes, kDefaultMaxVideoFramePixels);
  again->UseIndex(mem->SharedIndex());
  EXPECT_EQ(DecodeAll(*again, {idx.frames - 1}, VideoColor::kRGB), DecodeAll(*mem, {idx.frames - 1}, VideoColor::kRGB));
}

// Sequential reading (DecodeNext; DecodeNextHeld + ConvertHeld): the stream in chunks of 1,
// 2, 3 ... frames equals one Decode of every frame, in every codec, with and without FFmpeg's
// threads, by one decoding pass (decode_starts() stays 1 however many calls).
TEST_P(VideoSeeds, SequentialReadingIsOnePass) {
  SKIP_WITHOUT_FFMPEG();
  const SeedCase& c = GetParam();
  const std::vector<uint8_t> bytes = testing::ReadFile(Seed(c.file));
  auto ref = VideoDecoder::FromMemory(bytes, kDefaultMaxVideoFramePixels);
  const VideoIndex& idx = ref->Index();
  std::vector<int64_t> all;
  for (int64_t f = 0; f < idx.frames; ++f) all.push_back(f);
  const std::vector<uint8_t> whole = DecodeAll(*ref, all, VideoColor::kRGB);
  const size_t frame_bytes = whole.size() / all.size();
  for (int threads : {1, 3}) {
    auto d = VideoDecoder::FromMemory(bytes, kDefaultMaxVideoFramePixels, threads);
    d->Index();
    EXPECT_EQ(d->decode_starts(), 0);
    std::vector<uint8_t> got(whole.size());
    int calls = 0;
    for (int64_t chunk = 1; d->next_frame() < idx.frames; ++chunk, ++calls) {
      const int64_t first = d->next_frame(), n = std::min(chunk, idx.frames - first);
      d->DecodeNext(n, VideoColor::kRGB, [&](size_t i) { return got.data() + (size_t(first) + i) * frame_bytes; });
      EXPECT_EQ(d->next_frame(), first + n);
    }
    EXPECT_GT(calls, 1);
    EXPECT_EQ(got, whole) << c.file << " threads " << threads;
    EXPECT_EQ(d->decode_starts(), 1) << c.file;
    EXPECT_THROW(d->DecodeNext(1, VideoColor::kRGB, [&](size_t) { return got.data(); }), Error);  // past the end
  }
  // In two steps (what experimental.inputs.video does: chunks held, converted by several converters).
  auto d = VideoDecoder::FromMemory(bytes, kDefaultMaxVideoFramePixels, 2);
  d->Index();
  std::vector<uint8_t> got(whole.size());
  FrameConverter conv[2];
  for (int64_t first = 0; first < idx.frames; first += 4) {
    const int64_t n = std::min<int64_t>(4, idx.frames - first);
    d->DecodeNextHeld(n);
    for (int64_t i = n - 1; i >= 0; --i)  // any order, any converter
      d->ConvertHeld(size_t(i), VideoColor::kRGB, got.data() + size_t(first + i) * frame_bytes, conv[i % 2]);
  }
  EXPECT_EQ(got, whole) << c.file << " held";
  EXPECT_EQ(d->decode_starts(), 1);
}

INSTANTIATE_TEST_SUITE_P(Codecs, VideoSeeds,
                         ::testing::Values(SeedCase{"h264.mp4", 6, 32, 24, "h264"}, SeedCase{"h264.ts", 6, 32, 24, "h264"},
                                           SeedCase{"hevc.mp4", 6, 32, 24, "hevc"}, SeedCase{"vp9.webm", 6, 32, 24, "vp9"},
                                           SeedCase{"mpeg4.avi", 6, 32, 24, "mpeg4"}, SeedCase{"av1.mkv", 4, 64, 64, "av1"}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           for (char& ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

std::string OpenError(const std::vector<uint8_t>& bytes, int64_t max_pixels = kDefaultMaxVideoFramePixels) {
  try {
    auto d = VideoDecoder::FromMemory(bytes, max_pixels);
    d->Index();
  } catch (const Error& e) {
    return e.message();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

TEST(VideoDecode, BadInput) {
  SKIP_WITHOUT_FFMPEG();
  EXPECT_NE(OpenError({}).find("empty input"), std::string::npos);
  EXPECT_NE(OpenError(std::vector<uint8_t>(300, 'x')).find("cannot read the container"), std::string::npos);
  const std::vector<uint8_t> mp4 = testing::ReadFile(Seed("h264.mp4"));
  // ffmpeg writes the moov atom last: half a file has none.
  EXPECT_NE(OpenError(std::vector<uint8_t>(mp4.begin(), mp4.begin() + long(mp4.size() / 2))).find("moov"),
            std::string::npos);
  EXPECT_NE(OpenError(mp4, 32 * 24 - 1).find("over max_pixels"), std::string::npos);
  // Frames that do not exist are refused before anything is decoded.
  auto d = VideoDecoder::FromMemory(mp4, kDefaultMaxVideoFramePixels);
  std::vector<uint8_t> out(32 * 24 * 3);
  EXPECT_THROW(d->Decode(std::vector<int64_t>{6}, VideoColor::kRGB, [&](size_t) { return out.data(); }), Error);
  EXPECT_THROW(d->Decode(std::vector<int64_t>{3, 1}, VideoColor::kRGB, [&](size_t) { return out.data(); }), Error);
}

}  // namespace
}  // namespace sluice::kernels
