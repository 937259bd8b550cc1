// experimental.decoders.video: DALI's video decoder (dali/operators/video/decoder/): encoded video
// bytes in (a whole file: MP4, MKV/WebM, AVI, ...), the frames of one clip out, FHWC uint8. The
// clip is `frames` (given frame numbers), or from start_frame every stride-th frame for
// sequence_length frames or up to end_frame (exclusive), or every frame from start_frame; frames past
// the stream's end are padded per pad_mode. The work is VideoDecoding's (video_decoding.h), the
// decoding FFmpeg's (kernels/video/video_decode.h).
#include <algorithm>

#include "operators/on_error_arg.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "operators/video/video_decoding.h"

namespace sluice {
namespace {

class VideoDecoderOp final : public Operator {
 public:
  explicit VideoDecoderOp(const OpSpec& spec)
      : Operator(spec),
        decoding_(*this, ReplacesOnError(*this), /*image_type=*/false),
        pad_(ParseVideoPad(Arg<std::string>("pad_mode"))) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    samples_.clear();
    for (int i = 0; i < n; ++i) {
      if (in.shape(i).ndim() != 1) {
        Error::Context c;
        c.op = name();
        c.sample = i;
        c.source = in.source(i).ToString();
        throw Error("expected encoded bytes (1-D), got shape " + in.shape(i).ToString(), c);
      }
      samples_.push_back({{in.sample<uint8_t>(i), static_cast<size_t>(in.shape(i).num_elements())}, "", nullptr,
                          in.source(i)});
    }
    const bool has_frames = HasArg("frames"), has_len = HasArg("sequence_length"), has_end = HasArg("end_frame");
    const auto frames = has_frames ? PerSampleListArg<int64_t>(ws, "frames") : std::vector<std::vector<int64_t>>(size_t(n));
    const auto start = PerSampleArg<int64_t>(ws, "start_frame");
    const auto stride = PerSampleArg<int64_t>(ws, "stride");
    const auto length = has_len ? PerSampleArg<int64_t>(ws, "sequence_length") : std::vector<int64_t>(size_t(n), -1);
    const auto end = has_end ? PerSampleArg<int64_t>(ws, "end_frame") : std::vector<int64_t>(size_t(n), -1);
    auto clip = [&](int i, const kernels::VideoIndex& idx) {
      const size_t s = static_cast<size_t>(i);
      const int64_t count = idx.frames;
      if (has_frames) {
        std::vector<int64_t> out;
        for (int64_t f : frames[s]) {
          if (f < 0) throw Error("frames: frame " + std::to_string(f) + " is negative");
          if (f >= count && pad_ == VideoPad::kNone)
            throw Error("frames: frame " + std::to_string(f) + " is past the last frame of the " +
                        std::to_string(count) + "-frame video (pad_mode=\"none\")");
          out.push_back(f < count ? f : ClipFrames(f, 1, 1, count, pad_).front());
        }
        return out;
      }
      if (start[s] >= count)
        throw Error("start_frame " + std::to_string(start[s]) + " is past the last frame of the " +
                    std::to_string(count) + "-frame video");
      int64_t len = count - start[s];  // every frame from start_frame
      if (has_len && length[s] <= 0) throw Error("sequence_length must be positive, got " + std::to_string(length[s]));
      if (has_len) len = length[s];
      else if (has_end) len = std::max<int64_t>(0, end[s] - start[s]);
      if (!has_len) len = (len + stride[s] - 1) / stride[s];
      return ClipFrames(start[s], len, stride[s], count, pad_);
    };
    return {decoding_.Setup(samples_, clip, EachSample(ws))};
  }

  void Run(Workspace& ws) override { decoding_.Run(ws, samples_, ws.Output(0), EachSample(ws)); }

 private:
  VideoDecoding::ParallelFor EachSample(Workspace& ws) {
    return [this, &ws](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); };
  }

  VideoDecoding decoding_;
  const VideoPad pad_;
  std::vector<VideoDecoding::Sample> samples_;  // this batch's (input bytes stay valid until Run ends)
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterVideoDecoder) {
  OpSchema s("experimental.decoders.video");
  s.Doc("Decodes video on the CPU with FFmpeg (H.264, HEVC, VP9, VP8, AV1, MPEG-4, ... in MP4, MKV/WebM, AVI and "
        "the other containers FFmpeg reads, found from the bytes). Outputs one clip per sample: frames x height x "
        "width x 3 (\"FHWC\", uint8 RGB). The clip is `frames`, or from start_frame every stride-th frame for "
        "sequence_length frames or up to end_frame (exclusive), or every frame from start_frame. Frame k is the "
        "k-th frame a full decode outputs, for constant and variable frame rates (the decoder seeks to the "
        "keyframe before the clip and identifies frames by their timestamps). Display rotation metadata is not "
        "applied. Needs FFmpeg's libraries at run time (libavformat, libavcodec, libavutil, libswscale).")
      .Input("data", "Encoded video: a whole file's bytes (uint8, 1-D), e.g. what readers.file reads.", {DType::kUInt8})
      .Output("frames", "The clip: frames x height x width x 3, uint8 RGB (\"FHWC\").")
      .Arg("start_frame", ArgType::kInt, int64_t{0}, "The clip's first frame.", /*per_sample=*/true)
      .Min(0)
      .Arg("stride", ArgType::kInt, int64_t{1}, "The distance between consecutive frames of the clip.", true)
      .Min(1)
      .Arg("sequence_length", ArgType::kInt, int64_t{0},
           "The clip's length in frames (padded per pad_mode past the video's end); not given (0): up to end_frame, "
           "else to the video's end.", true)
      .Min(0)
      .Arg("end_frame", ArgType::kInt, int64_t{0}, "The frame the clip ends before (exclusive); used when given.", true)
      .Min(0)
      .Arg("frames", ArgType::kIntList, std::vector<int64_t>{},
           "The frame numbers to decode, in the order given (repeats allowed); frames past the end are padded per "
           "pad_mode. Excludes start_frame, stride, sequence_length and end_frame.",
           true)
      .Exclusive({"frames", "sequence_length", "end_frame"})
      .Exclusive({"frames", "start_frame"})
      .Exclusive({"frames", "stride"})
      .Arg("affine", ArgType::kBool, true, "Accepted for compatibility (DALI pins its mixed-backend threads); ignored.");
  AddVideoClipArgs(s, /*image_type=*/false, /*pad_default=*/"constant");
  AddOnErrorArg(s, "cannot be decoded", "the operator, the sample's source and, where the decoding failed, the frame",
                "decoded")
      .Factory("cpu", MakeFactory<VideoDecoderOp>());
  r.Register(std::move(s));
}

}  // namespace sluice
