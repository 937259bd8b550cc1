#include "readers/video/video_file_list.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sluice/error.h>

#include "readers/storage/url.h"

namespace sluice {

namespace {

[[noreturn]] void BadLine(const std::string& list, int line, const std::string& what) {
  throw Error("file_list '" + list + "', line " + std::to_string(line) + ": " + what);
}

// Frame k whose timestamp is the last at or before (down) / the first at or after (up) `seconds`
// on the stream's clock (the container's timestamps, not counted from the first frame: DALI 2.4
// reads a file whose first frame is at 1.5 s so); 0 when the time is past the last frame (DALI's
// lookup finds no frame then) or before the first.
int64_t FrameAtSeconds(const kernels::VideoIndex& idx, float seconds, bool down) {
  if (idx.by_timestamp && !idx.pts.empty() && idx.tb_num > 0 && idx.tb_den > 0) {
    // Truncated to the time base, as DALI's SecondsToTimestamp.
    const auto ts = static_cast<int64_t>(static_cast<double>(seconds) * static_cast<double>(idx.tb_den) /
                                         static_cast<double>(idx.tb_num));
    if (ts > idx.pts.back()) return 0;
    if (down) return std::max<int64_t>(std::upper_bound(idx.pts.begin(), idx.pts.end(), ts) - idx.pts.begin() - 1, 0);
    return std::lower_bound(idx.pts.begin(), idx.pts.end(), ts) - idx.pts.begin();
  }
  const double x = static_cast<double>(seconds) * idx.fps;  // no timestamps: the frame rate
  const auto k = static_cast<int64_t>(down ? std::floor(x) : std::ceil(x));
  return k < 0 || k >= idx.frames ? 0 : k;
}

bool ExperimentalRange(const VideoListEntry& e, const kernels::VideoIndex& idx, const VideoRangeRule& r,
                       int64_t* first, int64_t* end) {
  const int64_t n = idx.frames;
  if (r.frames) {
    const float s = e.start < 0 ? static_cast<float>(n) + e.start : e.start;
    const float t = e.end < 0 ? static_cast<float>(n) + e.end : e.end;
    *first = static_cast<int64_t>(r.start_down ? std::floor(s) : std::ceil(s));
    *end = static_cast<int64_t>(r.end_down ? std::floor(t) : std::ceil(t));
  } else {
    *first = FrameAtSeconds(idx, e.start, r.start_down);
    *end = FrameAtSeconds(idx, e.end, r.end_down);
  }
  if (r.clamp_end) *end = std::min(*end, n);
  if (*first >= *end) return false;
  if (*first < 0)
    throw Error("file_list line " + std::to_string(e.line) + ": the range starts at frame " + std::to_string(*first) +
                ", before the video's first frame");
  if (*end > n)
    throw Error("file_list line " + std::to_string(e.line) + ": the range ends at frame " + std::to_string(*end) +
                ", past the video's " + std::to_string(n) + " frames (file_list_include_end=True clamps it)");
  return true;
}

bool LegacyRange(const VideoListEntry& e, const kernels::VideoIndex& idx, const VideoRangeRule& r, int64_t* first,
                 int64_t* end) {
  const int64_t n = idx.frames;
  const char* what = r.frames ? "frame" : "time";
  if (r.frames) {  // float to int conversions truncate, as DALI's assignments
    *first = e.start >= 0 ? static_cast<int64_t>(e.start) : static_cast<int64_t>(static_cast<float>(n) + e.start);
    *end = e.end > 0 ? static_cast<int64_t>(e.end) : static_cast<int64_t>(static_cast<float>(n) + e.end);
  } else {
    const auto frame = [&](float seconds, bool down) {
      const double x = static_cast<double>(seconds) * idx.fps;
      return static_cast<int64_t>(down ? std::floor(x) : std::ceil(x));
    };
    *first = e.start >= 0 ? frame(e.start, r.start_down) : n + frame(e.start, r.start_down);
    *end = e.end > 0 ? frame(e.end, r.end_down) : n + frame(e.end, r.end_down);
  }
  const std::string at = "file_list line " + std::to_string(e.line) + ": ";
  if (*first > *end)
    throw Error(at + "the start " + what + " (frame " + std::to_string(*first) + ") is after the end " + what +
                " (frame " + std::to_string(*end) + ")");
  if (*first > n || *end > n)
    throw Error(at + "the range [" + std::to_string(*first) + ", " + std::to_string(*end) + ") is past the video's " +
                std::to_string(n) + " frames");
  if (*first < 0)
    throw Error(at + "the range starts at frame " + std::to_string(*first) + ", before the video's first frame");
  return *first < *end;
}

}  // namespace

std::vector<VideoListEntry> ReadVideoFileList(const std::string& list_path, const std::string& file_root) {
  std::ifstream f(list_path);
  if (!f) throw Error("cannot open file_list '" + list_path + "': " + std::strerror(errno));
  const std::string base = file_root.empty() ? ParentOfPath(list_path) : file_root;
  std::vector<VideoListEntry> out;
  std::string text;
  for (int line = 1; std::getline(f, text); ++line) {
    std::istringstream in(text);
    std::string path, token;
    if (!(in >> path)) continue;  // blank
    VideoListEntry e;
    e.line = line;
    int64_t label = -1;
    if (!(in >> token) || !(std::istringstream(token) >> label) || label < 0 || label > INT32_MAX)
      BadLine(list_path, line, "expected '<path> <label >= 0> [start [end]]', got '" + text + "'");
    e.label = static_cast<int32_t>(label);
    float* cols[2] = {&e.start, &e.end};
    int given = 0;
    for (float* c : cols) {
      if (!(in >> token)) break;
      std::istringstream num(token);
      // The bound keeps every later conversion (seconds times a frame rate or a time base, frames
      // rounded to int64) in range; no video is 10^8 frames or seconds long.
      if (!(num >> *c) || !std::isfinite(*c) || std::fabs(*c) > 1e8f)
        BadLine(list_path, line, "start and end must be numbers within +-1e8, got '" + token + "'");
      ++given;
    }
    if (given == 2 && e.start == e.end) continue;  // DALI skips such a line (with a warning)
    e.path = JoinPath(base, path);
    out.push_back(std::move(e));
  }
  if (out.empty()) throw Error("file_list '" + list_path + "' lists no files");
  return out;
}

bool VideoFrameRange(const VideoListEntry& e, const kernels::VideoIndex& idx, const VideoRangeRule& rule,
                     int64_t* first, int64_t* end) {
  if (e.start == 0 && e.end == 0) {
    *first = 0;
    *end = idx.frames;
    return idx.frames > 0;
  }
  return rule.legacy ? LegacyRange(e, idx, rule, first, end) : ExperimentalRange(e, idx, rule, first, end);
}

}  // namespace sluice
