// libFuzzer target: the video decoder (kernels/video/video_decode.h) on arbitrary bytes, demuxed
// and decoded from memory through its custom AVIOContext, as experimental.decoders.video does.
// Must never crash or hang; malformed input may only throw sluice::Error. A stream it indexes must
// be sane (positive size within the pixel limit, at least one frame, timestamps ascending); then
// the first frames, a clip from the middle (a seek) and the last frame are decoded, in RGB and GRAY.
// Seed corpus: fuzz/video_seeds/ (6 frames of testsrc2 at 32x24: H.264 in MP4 and MPEG-TS, HEVC,
// VP9 in WebM, MPEG-4 in AVI, AV1 in MKV at 64x64), made with the ffmpeg CLI:
//   ffmpeg -f lavfi -i testsrc2=size=32x24:rate=10 -frames:v 6 -threads 1 -c:v libx264 -g 3 -bf 1 h264.mp4
// (likewise -c:v libx265 / libvpx-vp9 / mpeg4 / libaom-av1, -f mpegts).
// Without FFmpeg's libraries at run time every input is rejected (the loader's error), which is
// not a failure.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <sluice/error.h>

#include "kernels/video/video_decode.h"

namespace {

constexpr int64_t kMaxPixels = int64_t{1} << 16;  // 256 x 256: a huge declared frame is refused
constexpr int64_t kMaxFrames = 64;                // decoded frames per input, bounding the time

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::kernels;
  const std::span<const uint8_t> bytes(data, size);
  try {
    auto decoder = VideoDecoder::FromMemory(bytes, kMaxPixels);
    const VideoIndex& idx = decoder->Index();
    if (idx.width <= 0 || idx.height <= 0 || int64_t{idx.width} * idx.height > kMaxPixels || idx.frames <= 0)
      __builtin_trap();
    if (idx.by_timestamp && (static_cast<int64_t>(idx.pts.size()) != idx.frames ||
                             !std::is_sorted(idx.pts.begin(), idx.pts.end())))
      __builtin_trap();
    const size_t frame_bytes = static_cast<size_t>(idx.width) * static_cast<size_t>(idx.height) * 3;
    std::vector<int64_t> frames;
    for (int64_t f = 0; f < std::min<int64_t>(idx.frames, 3); ++f) frames.push_back(f);
    std::vector<uint8_t> out(frame_bytes * kMaxFrames);
    decoder->Decode(frames, VideoColor::kRGB, [&](size_t i) { return out.data() + i * frame_bytes; });
    // A clip from the middle (seeking back to a keyframe), then the last frame, in GRAY.
    frames.clear();
    for (int64_t f = idx.frames / 2; f < idx.frames && static_cast<int64_t>(frames.size()) < 4; f += 2) frames.push_back(f);
    if (idx.frames > kMaxFrames) frames.resize(1);
    decoder->Decode(frames, VideoColor::kGray, [&](size_t i) { return out.data() + i * frame_bytes; });
    const int64_t last = idx.frames - 1;
    if (last < kMaxFrames) decoder->Decode(std::span<const int64_t>(&last, 1), VideoColor::kYCbCr,
                                          [&](size_t) { return out.data(); });
  } catch (const sluice::Error&) {
  }
  return 0;
}
