// The video operators' shared clip rule (video_decoding.h: ClipFrames, DALI's pad modes), and
// experimental.decoders.video through the harness: shapes and layout, determinism across thread
// counts, argument errors; experimental.inputs.video fed through Pipeline::FeedInput (DALI's batch
// outline over iterations). Pixels against PyAV: python/tests/test_video_decode.py,
// test_video_input.py.
#include <algorithm>

#include <gtest/gtest.h>

#include "kernels/kernels_test_util.h"
#include "kernels/video/ffmpeg_library.h"
#include "op_harness.h"
#include "operators/video/video_decoding.h"

namespace sluice::testing {
namespace {

using V = std::vector<int64_t>;

TEST(VideoClipFrames, PadModes) {
  EXPECT_EQ(ClipFrames(2, 3, 2, 10, VideoPad::kNone), (V{2, 4, 6}));
  EXPECT_EQ(ClipFrames(7, 4, 1, 10, VideoPad::kNone), (V{7, 8, 9}));
  EXPECT_EQ(ClipFrames(7, 5, 1, 10, VideoPad::kConstant), (V{7, 8, 9, -1, -1}));
  EXPECT_EQ(ClipFrames(7, 5, 1, 10, VideoPad::kEdge), (V{7, 8, 9, 9, 9}));
  EXPECT_EQ(ClipFrames(8, 5, 1, 10, VideoPad::kReflect1001), (V{8, 9, 9, 8, 7}));
  EXPECT_EQ(ClipFrames(8, 5, 1, 10, VideoPad::kReflect101), (V{8, 9, 8, 7, 6}));
  // Past a whole period: the reflection goes on (0 1 2 | 2 1 0 | 0 1 2 ... and 0 1 2 | 1 0 | 1 2 ...).
  EXPECT_EQ(ClipFrames(0, 9, 1, 3, VideoPad::kReflect1001), (V{0, 1, 2, 2, 1, 0, 0, 1, 2}));
  EXPECT_EQ(ClipFrames(0, 8, 1, 3, VideoPad::kReflect101), (V{0, 1, 2, 1, 0, 1, 2, 1}));
  EXPECT_EQ(ClipFrames(0, 3, 1, 1, VideoPad::kReflect101), (V{0, 0, 0}));
  EXPECT_EQ(ParseVideoPad("repeat"), VideoPad::kEdge);
  EXPECT_EQ(ParseVideoPad("symmetric"), VideoPad::kReflect1001);
  EXPECT_EQ(ParseVideoPad("reflect"), VideoPad::kReflect101);
}

HostBatch Encoded(const std::vector<std::vector<uint8_t>>& files) {
  std::vector<TensorShape> shapes;
  for (const auto& f : files) shapes.push_back(TensorShape{int64_t(f.size())});
  return HostBatch::Of(files, shapes);
}

std::vector<uint8_t> Seed(const std::string& name) {
  return kernels::testing::ReadFile(std::string(SLUICE_SOURCE_DIR) + "/fuzz/video_seeds/" + name);
}

TEST(DecodersVideo, ShapesLayoutAndThreads) {
  if (!kernels::FfmpegAvailable()) GTEST_SKIP() << "FFmpeg's libraries are not installed";
  const auto h264 = Seed("h264.mp4"), vp9 = Seed("vp9.webm"), av1 = Seed("av1.mkv");
  OpCase c{OperatorDef("experimental.decoders.video").Arg("start_frame", int64_t{1}).Arg("sequence_length", int64_t{5})
               .Arg("pad_mode", std::string("edge")),
           Encoded({h264, vp9, av1, h264}), {}};
  const auto out = RunOpCase(c);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].layout(), "FHWC");
  EXPECT_EQ(out[0].dtype(), DType::kUInt8);
  EXPECT_EQ(out[0].shape(0), (TensorShape{5, 24, 32, 3}));
  EXPECT_EQ(out[0].shape(2), (TensorShape{5, 64, 64, 3}));  // 4 frames, padded with the last
  ExpectSameForAnyThreadCount(c);
}

TEST(DecodersVideo, Errors) {
  if (!kernels::FfmpegAvailable()) GTEST_SKIP() << "FFmpeg's libraries are not installed";
  ExpectCallError(OperatorDef("experimental.decoders.video").Arg("frames", std::vector<int64_t>{1})
                      .Arg("sequence_length", int64_t{2}),
                  "frames", "");
  ExpectCallError(OperatorDef("experimental.decoders.video").Arg("pad_mode", std::string("wrap")), "pad_mode", "");
  ExpectRunError({OperatorDef("experimental.decoders.video").Arg("start_frame", int64_t{9}), Encoded({Seed("h264.mp4")}), {}},
                 "start_frame 9 is past the last frame of the 6-frame video");
  ExpectRunError({OperatorDef("experimental.decoders.video").Arg("fill_value", std::vector<int64_t>{1, 2}),
                  Encoded({Seed("h264.mp4")}), {}},
                 "fill_value");
}

// experimental.inputs.video: one 6-frame video in sequences of 4, batches of 2: the first batch
// holds one whole sequence and the rest (2 frames: "partial", or padded with zeros), then the next
// video fed; with none left, the iteration fails naming the operator.
TEST(InputsVideo, BatchOutlineOverIterations) {
  if (!kernels::FfmpegAvailable()) GTEST_SKIP() << "FFmpeg's libraries are not installed";
  const auto h264 = Seed("h264.mp4");
  for (const std::string policy : {"partial", "pad"}) {
    PipelineOptions o;
    o.batch_size = 2;
    o.num_threads = 2;
    o.cpu_queue_depth = 1;
    Pipeline p(o);
    p.SetOutputs(p.AddOperator(OperatorDef("experimental.inputs.video")
                                   .Name("vid")
                                   .Arg("sequence_length", int64_t{4})
                                   .Arg("last_sequence_policy", policy)));
    p.Build();
    const HostBatch two = Encoded({h264, h264});
    p.FeedInput("vid", harness_detail::Samples(two), "");
    for (int video = 0; video < 2; ++video) {
      p.ScheduleRun();
      const auto out = p.ShareOutputs();
      const Batch& seqs = out[0];
      ASSERT_EQ(seqs.num_samples(), 2);
      EXPECT_EQ(seqs.layout(), "FHWC");
      EXPECT_EQ(seqs.shape(0), (TensorShape{4, 24, 32, 3}));
      EXPECT_EQ(seqs.shape(1), (TensorShape{policy == "pad" ? 4 : 2, 24, 32, 3}));
      if (policy == "pad") {
        const uint8_t* last = static_cast<const uint8_t*>(seqs.data(1)) + 2 * 24 * 32 * 3;
        EXPECT_TRUE(std::all_of(last, last + 2 * 24 * 32 * 3, [](uint8_t v) { return v == 0; }));
      }
      EXPECT_EQ(seqs.source(0).path, "vid (fed video " + std::to_string(video) + ")");
      p.ReleaseOutputs();
    }
    p.ScheduleRun();
    try {
      p.ShareOutputs();
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("[vid] the videos fed have been returned to their end"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace sluice::testing
