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
// Decoding: each video is decoded once, in order, by one FFmpeg decoder the operator keeps open
// from the video's first batch to its last (kernels::VideoDecoder::DecodeNext): a batch continues
// the decoding pass where the previous one stopped -- no seek, no keyframe decoded again per
// sequence, which for long GOPs (a keyframe every 250 frames) would decode up to a whole GOP per
// sequence. The sequences of a batch are consecutive frames of that one pass, so the operator's
// threads go to FFmpeg's frame threading (thread_count = num_threads) rather than to a decoder per
// sequence, and to the conversion to RGB: the batch is decoded a chunk of frames at a time, each
// chunk converted on the pipeline's threads. Frames are the same bit for bit as PyAV's full decode.
// executor_statistics()[name]["counters"]["decoder_starts"] counts the decoding passes started.
//
// Thread-safety: Feed runs on the application's thread, Setup and Run on the executor's; the queue
// of fed videos is guarded by mu_ (held only to push or pop). The video being decoded, its decoder
// and the position in it belong to the executor's thread; counters() reads an atomic. blocking=True
// makes Setup wait for a video, waking every 20 ms to see whether the pipeline is shutting down.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>

#include "kernels/video/video_decode.h"
#include "operators/fed_input.h"
#include "operators/operator.h"
#include "operators/operator_counters.h"
#include "operators/registry.h"
#include "operators/video/video_decoding.h"

namespace sluice {
namespace {

class VideoInput final : public Operator, public FedInput, public OperatorCounters {
 public:
  explicit VideoInput(const OpSpec& spec)
      : Operator(spec),
        length_(Arg<int64_t>("sequence_length")),
        pad_(Arg<std::string>("last_sequence_policy") == "pad"),
        blocking_(Arg<bool>("blocking")) {}

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
    OutputDesc d;
    d.dtype = DType::kUInt8;
    d.layout = "FHWC";
    batch_first_ = next_;
    for (int i = 0; i < n; ++i) {
      const int64_t frames = std::min(length_, index_->frames - next_);  // the real frames (the rest: padding)
      d.shapes.push_back(TensorShape{pad_ ? length_ : frames, index_->height, index_->width, 3});
      next_ += frames;
    }
    return {d};
  }

  std::vector<std::pair<std::string, int64_t>> counters() const override {
    return {{"decoder_starts", decoder_starts_.load(std::memory_order_relaxed)}};
  }

  // Decodes the batch's frames in order, a chunk at a time (FFmpeg's threads decode), and converts
  // each chunk to RGB on the pipeline's threads (libswscale: as costly as decoding at 720p).
  void Run(Workspace& ws) override {
    TensorList& out = ws.Output(0);
    const size_t frame_bytes = static_cast<size_t>(index_->width) * static_cast<size_t>(index_->height) * 3;
    std::vector<uint8_t*> dst;  // every frame of the batch, in order
    for (int i = 0; i < out.num_samples(); ++i) {
      uint8_t* seq = out.mutable_sample<uint8_t>(i);
      const int64_t real = std::min(length_, index_->frames - (batch_first_ + static_cast<int64_t>(dst.size())));
      for (int64_t k = 0; k < real; ++k) dst.push_back(seq + static_cast<size_t>(k) * frame_bytes);
      const int64_t total = out.shape(i)[0];  // padding: frames of zeros
      if (total > real)
        std::memset(seq + static_cast<size_t>(real) * frame_bytes, 0, static_cast<size_t>(total - real) * frame_bytes);
      out.source(i) = video_->source;
    }
    const int threads = ws.pool().num_threads();
    while (converters_.size() < static_cast<size_t>(threads))
      converters_.push_back(std::make_unique<kernels::FrameConverter>(conversion_));
    const size_t chunk = static_cast<size_t>(4 * threads);
    try {
      if (decoder_->next_frame() != batch_first_)
        throw Error("frame " + std::to_string(batch_first_) + " cannot be decoded: this video's decoding stopped at frame " +
                    std::to_string(decoder_->next_frame()) + " after an earlier error");
      for (size_t k = 0; k < dst.size(); k += chunk) {
        if (ws.cancelled()) throw Error("cancelled: the pipeline is shutting down");
        const size_t n = std::min(chunk, dst.size() - k);
        decoder_->DecodeNextHeld(static_cast<int64_t>(n));
        ws.pool().ParallelFor(static_cast<int>(n), [&](int j, int t) {
          decoder_->ConvertHeld(static_cast<size_t>(j), kernels::VideoColor::kRGB, dst[k + static_cast<size_t>(j)],
                                *converters_[static_cast<size_t>(t)]);
        });
      }
      decoder_->DecodeNextHeld(0);  // releases the last chunk's frames
    } catch (const Error& e) {
      throw WithSource(e);
    }
    decoder_starts_.store(finished_starts_ + decoder_->decode_starts(), std::memory_order_relaxed);
  }

 private:
  struct Video {
    std::vector<uint8_t> bytes;
    SourceInfo source;
  };

  Error WithSource(const Error& e) const {
    Error::Context c = e.context();
    if (c.source.empty()) c.source = video_->source.ToString();
    return Error(e.message(), c);
  }

  void StartNextVideo(const Workspace& ws) {
    if (decoder_) finished_starts_ += decoder_->decode_starts();
    decoder_.reset();  // before the bytes it reads
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
      // FFmpeg's threads: as many as the pipeline's (the batch is one decoding pass).
      auto decoder = kernels::VideoDecoder::FromMemory(v->bytes, kernels::kDefaultMaxVideoFramePixels,
                                                       ws.pool().num_threads());
      index_ = decoder->SharedIndex();
      decoder_ = std::move(decoder);
    } catch (const Error& e) {
      Error::Context c = e.context();
      c.source = v->source.ToString();
      throw Error(e.message(), c);
    }
    video_ = std::move(v);
  }

  const int64_t length_;
  const bool pad_, blocking_;

  std::mutex mu_;
  std::condition_variable fed_cv_;
  std::deque<std::shared_ptr<Video>> queue_;  // guarded by mu_
  int64_t fed_ = 0;                           // guarded by mu_: videos fed so far

  // Executor thread.
  std::shared_ptr<const Video> video_;  // the video being returned
  std::shared_ptr<const kernels::VideoIndex> index_;
  std::unique_ptr<kernels::VideoDecoder> decoder_;  // reads video_->bytes, one pass from first frame to last
  std::vector<std::unique_ptr<kernels::FrameConverter>> converters_;  // one per pool thread
  kernels::VideoConversion conversion_ = ParseVideoConversion(*this);
  int64_t next_ = 0;         // its first frame not yet planned (Setup)
  int64_t batch_first_ = 0;  // the first frame of the batch Setup planned (Run decodes it)
  int64_t finished_starts_ = 0;  // decoding passes of the videos done
  std::atomic<int64_t> decoder_starts_{0};
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterVideoInput) {
  OpSchema schema =
      OpSchema("experimental.inputs.video")
          .Doc("Streams videos fed as encoded bytes (pipeline.feed_input(name, [bytes]); each sample fed is one "
               "video, queued) and returns each as consecutive sequences of sequence_length frames, batch_size of "
               "them per iteration, over as many iterations as the video lasts: its last batch holds what is left "
               "(fewer sequences, the last one shorter, or padded with zero frames with "
               "last_sequence_policy=\"pad\"); the iteration after it takes the next video fed. Running with no video "
               "left is an error (blocking=False) or waits for one (blocking=True). Frames are uint8 RGB \"FHWC\", "
               "decoded on the CPU with FFmpeg as experimental.decoders.video.")
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
          .Arg("affine", ArgType::kBool, true, "DALI's GPU decoder thread affinity; no effect on the CPU.");
  AddVideoConversionArg(schema);
  r.Register(schema.Factory("cpu", MakeFactory<VideoInput>()));
}

}  // namespace sluice
