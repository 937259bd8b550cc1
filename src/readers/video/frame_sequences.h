// readers.sequence's dataset (DALI's SequenceLoader): a file_root whose subfolders are streams of
// frames stored as image files, and the sequences cut from them.
//
// The streams are file_root's subfolders in byte order; a stream's frames are its image files
// (DALI's image extensions, any case) sorted by name in byte order; files directly in file_root,
// and subfolders below the streams, are ignored. A stream of n frames holds the sequences starting
// at frames 0, step, 2 * step, ... whose last frame, start + (length - 1) * stride, is inside the
// stream: sequences never cross streams and are never padded (a stream shorter than one sequence
// gives none). Pure listing: no file is opened.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

// The file names a stream's frames may have (DALI's known image extensions).
std::vector<std::string> FrameFileFilters();

// The first frames of the sequences of one stream of `frames` frames (length, step, stride >= 1).
std::vector<int64_t> SequenceStarts(int64_t frames, int64_t length, int64_t step, int64_t stride);

struct FrameSequences {
  std::vector<std::string> frames;  // every frame's path, stream after stream
  std::vector<int64_t> starts;      // per sequence: the index in `frames` of its first frame
  int64_t length = 1, stride = 1;

  int64_t size() const { return static_cast<int64_t>(starts.size()); }
  // Frame k (0 <= k < length) of sequence s.
  const std::string& frame(int64_t s, int64_t k) const {
    return frames[static_cast<size_t>(starts[static_cast<size_t>(s)] + k * stride)];
  }
};

// Lists `root` and cuts its streams into sequences. Throws sluice::Error naming the folder if it
// cannot be read or holds no frame (ListFileRoot's errors), or if no stream is long enough for one
// sequence.
FrameSequences ListFrameSequences(const std::string& root, int64_t length, int64_t step, int64_t stride);

}  // namespace sluice
