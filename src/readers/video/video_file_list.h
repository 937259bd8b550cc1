// The video readers' file_list: "path label [start [end]]" lines, and how start/end become the
// frames a file's clips are cut from -- DALI 2.4's two rules:
//   - readers.video (DALI's legacy NVDEC reader, dali/operators/video/legacy/reader/video_loader.h):
//     file_list_frame_num -> frame numbers (negative: counted from the end), else seconds times the
//     stream's frame rate, start rounded up and end down (file_list_include_preceding_frame: start
//     down, end up); a range past the video or reversed is an error; a start without an end runs to
//     the video's end;
//   - experimental.readers.video (DALI's CPU/GPU reader, video_reader_decoder_op.cc):
//     file_list_format "frames" (negative: counted from the end, fractions rounded by
//     file_list_rounding) or "timestamps" (seconds on the stream's clock -- the container's
//     timestamps, as DALI compares them, while its timestamps output counts from the first
//     frame --, truncated to the stream's time base, then the frame at or before / at or after it by file_list_rounding; a time past the
//     last frame means frame 0, as DALI's index lookup gives); file_list_include_end clamps the end
//     to the video's frame count (without it an end past the video is an error, as DALI's decoding
//     fails); an empty or reversed range skips the line (a start without an end is one: end 0).
// The range is [first, end): end exclusive in both. Lines are parsed as DALI's GetVideoFiles does
// (white-space separated, so paths hold no spaces; the numbers are float32; a label below 0 is an
// error; a line whose start equals its end is skipped); relative paths are joined to file_root, else
// to the list's folder (Sluice's rule for every file_list).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/video/video_decode.h"

namespace sluice {

struct VideoListEntry {
  std::string path;
  int32_t label = 0;
  float start = 0, end = 0;  // 0 and 0: the whole video
  int line = 0;              // in the list, for errors
};

// Reads the list (a local file). Throws sluice::Error naming the list and the line.
std::vector<VideoListEntry> ReadVideoFileList(const std::string& list_path, const std::string& file_root);

struct VideoRangeRule {
  bool legacy = false;         // readers.video's rule, else experimental.readers.video's
  bool frames = false;         // start/end are frame numbers, else seconds
  bool start_down = true;      // round the start down (else up)
  bool end_down = false;       // round the end down (else up)
  bool clamp_end = true;       // experimental: file_list_include_end
};

// The frames [*first, *end) of `e` in a video with `index`; false when the range is empty (the
// line is skipped). Throws sluice::Error (the caller names the file) for ranges DALI rejects.
bool VideoFrameRange(const VideoListEntry& e, const kernels::VideoIndex& index, const VideoRangeRule& rule,
                     int64_t* first, int64_t* end);

}  // namespace sluice
