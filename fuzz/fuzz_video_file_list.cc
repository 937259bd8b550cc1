// libFuzzer target: the video readers' file_list (readers/video/video_file_list.h) on arbitrary bytes,
// then each entry's frame range under every rule (legacy or experimental, frames or seconds, the
// rounding and clamping flags picked by the first byte) in a synthetic video whose frame count,
// frame rate and timestamps the second byte picks. Must never crash; malformed lines may only throw
// sluice::Error. A range that is accepted lies inside the video: 0 <= first < end <= frames.
// Seed corpus: fuzz/video_list_seeds/ (lists with labels only, seconds, frames, negative and huge values).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <sluice/error.h>

#include "readers/video/video_file_list.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const std::string path = "/tmp/fuzz_video_file_list." + std::to_string(getpid()) + ".txt";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data + 2, 1, size - 2, f);
    std::fclose(f);
  } else {
    return 0;
  }
  sluice::VideoRangeRule rule;
  rule.legacy = data[0] & 1;
  rule.frames = data[0] & 2;
  rule.start_down = data[0] & 4;
  rule.end_down = data[0] & 8;
  rule.clamp_end = data[0] & 16;
  sluice::kernels::VideoIndex index;
  index.frames = data[1] & 0x7f;
  index.fps = (data[1] & 0x80) ? 30000.0 / 1001.0 : 25.0;
  if (data[0] & 32) {  // timestamps: 1/90000 time base, a first frame at 1.5 s, a frame every 3600 ticks
    index.by_timestamp = true;
    index.tb_num = 1;
    index.tb_den = 90000;
    for (int64_t k = 0; k < index.frames; ++k) index.pts.push_back(135000 + 3600 * k);
  }
  try {
    for (const sluice::VideoListEntry& e : sluice::ReadVideoFileList(path, "/root")) {
      if (e.path.empty() || e.label < 0 || e.line < 1) __builtin_trap();
      int64_t first = -1, end = -1;
      try {
        if (sluice::VideoFrameRange(e, index, rule, &first, &end) &&
            !(first >= 0 && first < end && end <= index.frames))
          __builtin_trap();
      } catch (const sluice::Error&) {
      }
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
