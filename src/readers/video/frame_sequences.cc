#include "readers/common/file_root_index.h"
#include "readers/video/frame_sequences.h"

#include <algorithm>

#include <sluice/error.h>


namespace sluice {

std::vector<std::string> FrameFileFilters() {
  return {"*.jpg", "*.jpeg", "*.png", "*.gif", "*.bmp", "*.tif", "*.tiff", "*.pnm",
          "*.ppm", "*.pgm", "*.pbm", "*.jp2", "*.webp"};
}

std::vector<int64_t> SequenceStarts(int64_t frames, int64_t length, int64_t step, int64_t stride) {
  std::vector<int64_t> starts;
  const int64_t span = (length - 1) * stride;  // from the first frame to the last
  for (int64_t s = 0; s + span < frames; s += step) starts.push_back(s);
  return starts;
}

FrameSequences ListFrameSequences(const std::string& root, int64_t length, int64_t step, int64_t stride) {
  // ListFileRoot's classes are the streams: subfolders in byte order, files sorted by name.
  std::vector<FileLabel> files = ListFileRoot(root, FrameFileFilters(), /*case_sensitive=*/false);
  FrameSequences out;
  out.length = length;
  out.stride = stride;
  out.frames.reserve(files.size());
  size_t begin = 0;
  int64_t streams = 0, longest = 0;
  for (size_t i = 0; i <= files.size(); ++i) {
    if (i < files.size() && files[i].label == files[begin].label) continue;
    const int64_t n = static_cast<int64_t>(i - begin);
    for (int64_t s : SequenceStarts(n, length, step, stride)) out.starts.push_back(static_cast<int64_t>(begin) + s);
    ++streams;
    longest = std::max(longest, n);
    begin = i;
  }
  for (FileLabel& f : files) out.frames.push_back(std::move(f.path));
  if (out.starts.empty())
    throw Error("file_root '" + root + "' holds no sequence of sequence_length " + std::to_string(length) +
                " and stride " + std::to_string(stride) + " (a sequence spans " +
                std::to_string((length - 1) * stride + 1) + " frames; the longest of its " + std::to_string(streams) +
                " streams has " + std::to_string(longest) + ")");
  return out;
}

}  // namespace sluice
