// readers.sequence's dataset: which files are a stream's frames, and DALI's rule for the sequences
// (starts every `step` frames while the last frame, `stride` apart, is in the stream).
#include <gtest/gtest.h>

#include "readers/video/frame_sequences.h"
#include "readers_test_util.h"

namespace sluice {
namespace {

using testing::ErrorOf;
using testing::TempDir;
using testing::WriteFile;

TEST(SequenceStarts, WholeSequencesOnlyEveryStepFrames) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(SequenceStarts(5, 3, 1, 1), (V{0, 1, 2}));
  EXPECT_EQ(SequenceStarts(5, 1, 1, 1), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(SequenceStarts(7, 2, 3, 1), (V{0, 3}));     // 6 + 1 = 7 is past the end
  EXPECT_EQ(SequenceStarts(7, 3, 1, 2), (V{0, 1, 2}));  // last frames 4, 5, 6
  EXPECT_EQ(SequenceStarts(9, 2, 2, 3), (V{0, 2, 4}));  // last frames 3, 5, 7; 6 + 3 = 9 is past
  EXPECT_EQ(SequenceStarts(3, 4, 1, 1), V{});           // shorter than one sequence: none
  EXPECT_EQ(SequenceStarts(0, 1, 1, 1), V{});
  EXPECT_EQ(SequenceStarts(4, 4, 10, 1), (V{0}));
}

TEST(FrameSequences, StreamsInByteOrderFramesSortedImagesOnly) {
  TempDir d;
  const std::string r = d.path();
  for (const char* f : {"/s1/002.png", "/s1/001.png", "/s1/003.JPG", "/s1/notes.txt", "/s0/a.webp", "/s0/b.bmp",
                        "/top.png", "/s1/sub/004.png", "/s2/x.png"})
    WriteFile(r + f, "x");
  testing::MakeDirs(r + "/empty");
  const FrameSequences s = ListFrameSequences(r, 2, 1, 1);
  const std::vector<std::string> frames = {r + "/s0/a.webp", r + "/s0/b.bmp", r + "/s1/001.png", r + "/s1/002.png",
                                           r + "/s1/003.JPG", r + "/s2/x.png"};
  EXPECT_EQ(s.frames, frames);
  EXPECT_EQ(s.starts, (std::vector<int64_t>{0, 2, 3}));  // s0: 1; s1: 2; s2 (one frame): none
  EXPECT_EQ(s.frame(1, 0), r + "/s1/001.png");
  EXPECT_EQ(s.frame(2, 1), r + "/s1/003.JPG");
  const FrameSequences strided = ListFrameSequences(r, 2, 1, 2);
  EXPECT_EQ(strided.starts, (std::vector<int64_t>{2}));
  EXPECT_EQ(strided.frame(0, 1), r + "/s1/003.JPG");
}

TEST(FrameSequences, ErrorsNameTheFolder) {
  TempDir d;
  std::string msg = ErrorOf([&] { ListFrameSequences(d / "nope", 1, 1, 1); });
  EXPECT_NE(msg.find(d / "nope"), std::string::npos) << msg;
  WriteFile(d / "s/1.png", "x");
  WriteFile(d / "s/2.png", "x");
  msg = ErrorOf([&] { ListFrameSequences(d.path(), 3, 1, 1); });
  EXPECT_NE(msg.find("file_root '" + d.path() + "' holds no sequence of sequence_length 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the longest of its 1 streams has 2"), std::string::npos) << msg;
}

}  // namespace
}  // namespace sluice
