// experimental.inputs.video: DALI's input operator that streams a video fed as encoded bytes
// (Pipeline.feed_input, one video per sample fed) and returns it as consecutive sequences over as
// many iterations as it lasts (dali/operators/input/video_input.h). DALI runs it on the mixed and
// GPU backends (NVDEC); this is the CPU version, decoding with FFmpeg as experimental.decoders.video.
//
// Batches: the video's frames are cut into sequences of sequence_length consecutive frames (frame
// k is the k-th frame a full decode outputs); each iteration returns the next batch_size of them,
// and the last batch of a video holds what is left -- fewer sequences, the last one shorter
// (last_sequence_policy="partial") or completed with zero frames ("pad") -- so a batch never mixes
// two videos (DALI's DetermineBatchOutline). The next iteration takes the next video fed.
//
// Thread-safety: Feed runs on the application's thread, Setup and Run on the executor's; the queue
// of fed videos is guarded by mu_ (held only to push or pop). The video being decoded, its index
// and the position in it belong to the executor's thread. blocking=True makes Setup wait for a
// video, waking every 20 ms to see whether the pipeline is shutting down.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "operators/fed_input.h"
#include "operators/registry.h"
#include "operators/video/video_decoding.h"

namespace sluice {
namespace {

class VideoInput final : public Operator, public FedInput {
 public:
  explicit VideoInput(const OpSpec& spec)
      : Operator(spec),
        length_(Arg<int64_t>("sequence_length")),
        pad_(Arg<std::string>("last_sequence_policy") == "pad"),
        blocking_(Arg<bool>("blocking")),
        decoding_(kernels::VideoColor::kRGB, {0}, kernels::kDefaultMaxVideoFramePixels, /*replace_on_error=*/false) {}

  void Feed(const std::vector<ExternalSample>& samples, const std::string&, const MemoryConfig&) override {
    if (samples.empty()) ThrowArgError("", "fed no video");
    std::vector<std::shared_ptr<Video>> videos;
    for (size_t i = 0; i < samples.size(); ++i) {
      const ExternalSample& s = samples[i];
      if (s.dtype != DType::kUInt8 || s.shape.ndim() != 1)
        ThrowArgError("", "fed sample " + std::to_string(i) + " is " + std::string(ToString(s.dtype)) + " of " +
                              std::to_string(s.shape.ndim()) +
                              " dimensions; a video is fed as its encoded bytes (uint8, 1-D)");
      if (s.shape[0] == 0) ThrowArgError("", "fed sample " + std::to_string(i) + " is empty (no video bytes)");
      auto v = std::make_shared<Video>();
      const auto* p = static_cast<const uint8_t*>(s.data);
      v->bytes.assign(p, p + s.shape[0]);
      videos.push_back(std::move(v));
    }
    {
      std::lock_guard lk(mu_);
      for (auto& v : videos) {
        v->source.path = name() + " (fed video " + std::to_string(fed_++) + ")";
        queue_.push_back(std::move(v));
      }
    }
    fed_cv_.notify_all();
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    if (!video_ || next_ >= index_->frames) StartNextVideo(ws);
    const int64_t left = index_->frames - next_;
    const int n = static_cast<int>(std::min<int64_t>(ws.batch_size(), (left + length_ - 1) / length_));
    samples_.assign(static_cast<size_t>(n), {video_->bytes, "", index_, video_->source});
    const int64_t first = next_;
    const VideoPad pad = pad_ ? VideoPad::kConstant : VideoPad::kNone;
    auto clip = [&](int i, const kernels::VideoIndex& idx) {
      return ClipFrames(first + i * length_, length_, 1, idx.frames, pad);
    };
    std::vector<OutputDesc> out{decoding_.Setup(samples_, clip, EachSample(ws))};
    next_ += int64_t{n} * length_;
    return out;
  }

  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    decoding_.Run(ws, samples_, out, EachSample(ws));
    for (int i = 0; i < out.num_samples(); ++i) out.source(i) = video_->source;
  }

 private:
  struct Video {
    std::vector<uint8_t> bytes;
    SourceInfo source;
  };

  // Runs fn over this batch's sequences (fewer than batch_size for a video's last batch).
  VideoDecoding::ParallelFor EachSample(Workspace& ws) {
    return [this, &ws](const std::function<void(int, int)>& fn) {
      ws.pool().ParallelFor(static_cast<int>(samples_.size()), [&](int i, int t) {
        if (ws.cancelled()) throw Error("cancelled: the pipeline is shutting down");
        fn(i, t);
      });
    };
  }

  void StartNextVideo(const Workspace& ws) {
    video_.reset();
    index_.reset();
    next_ = 0;
    std::shared_ptr<const Video> v;
    {
      std::unique_lock lk(mu_);
      while (queue_.empty()) {
        if (!blocking_)
          throw Error(std::string(fed_ ? "the videos fed have been returned to their end" : "no video was fed") +
                      ": feed the next one (pipeline.feed_input(\"" + name() +
                      "\", [encoded bytes])) before running, or build with blocking=True to wait for it");
        if (ws.cancelled()) throw Error("cancelled: the pipeline is shutting down");
        fed_cv_.wait_for(lk, std::chrono::milliseconds(20));
      }
      v = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      index_ = kernels::VideoDecoder::FromMemory(v->bytes, decoding_.max_pixels())->SharedIndex();
    } catch (const Error& e) {
      Error::Context c = e.context();
      c.source = v->source.ToString();
      throw Error(e.message(), c);
    }
    video_ = std::move(v);
  }

  const int64_t length_;
  const bool pad_, blocking_;
  VideoDecoding decoding_;

  std::mutex mu_;
  std::condition_variable fed_cv_;
  std::deque<std::shared_ptr<Video>> queue_;  // guarded by mu_
  int64_t fed_ = 0;                           // guarded by mu_: videos fed so far

  // Executor thread.
  std::shared_ptr<const Video> video_;  // the video being returned
  std::shared_ptr<const kernels::VideoIndex> index_;
  int64_t next_ = 0;  // its first frame not yet returned
  std::vector<VideoDecoding::Sample> samples_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterVideoInput) {
  r.Register(
      OpSchema("experimental.inputs.video")
          .Doc("Streams videos fed as encoded bytes (pipeline.feed_input(name, [bytes]); each sample fed is one "
               "video, queued) and returns each as consecutive sequences of sequence_length frames, batch_size of "
               "them per iteration, over as many iterations as the video lasts: its last batch holds what is left "
               "(fewer sequences, the last one shorter, or padded with zero frames with "
               "last_sequence_policy=\"pad\"); the iteration after it takes the next video fed. Running with no video "
               "left is an error (blocking=False) or waits for one (blocking=True). Frames are uint8 RGB \"FHWC\", "
               "decoded on the CPU with FFmpeg as experimental.decoders.video (DALI runs this operator on the GPU).")
          .Output("video", "The sequences: frames x height x width x 3, uint8 (\"FHWC\").")
          .Arg("sequence_length", ArgType::kInt, std::nullopt, "Frames per sequence.")
          .Min(1)
          .Arg("last_sequence_policy", ArgType::kString, std::string("partial"),
               "The video's last sequence when its frames run out: \"partial\" (shorter) or \"pad\" (completed with "
               "frames of zeros).")
          .Enum({"partial", "pad"})
          .Arg("blocking", ArgType::kBool, false,
               "Wait for a video to be fed when none is left, instead of failing the iteration.")
          .Arg("no_copy", ArgType::kBool, false,
               "Accepted for DALI compatibility; the fed bytes are always copied (the caller may reuse them as soon "
               "as feed_input returns).")
          .Arg("affine", ArgType::kBool, true, "DALI's GPU decoder thread affinity; no effect on the CPU.")
          .Factory("cpu", MakeFactory<VideoInput>()));
}

}  // namespace sluice
