// What experimental.decoders.video and the video readers share: the clip arguments (DALI's
// sequence_length, stride, pad_mode, fill_value; Sluice's max_pixels), the clip rule, and
// VideoDecoding, which decodes a batch of clips into one FHWC uint8 output -- sized in Setup from
// each stream's index, decoded on the operator's threads (one FFmpeg decoder per sample, single
// threaded) -- with on_error="replace" as the image and audio decoders do it.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/video/video_decode.h"
#include "operators/operator.h"

namespace sluice {

// pad_mode: what a clip frame past the stream's end becomes.
enum class VideoPad { kNone, kConstant, kEdge, kReflect1001, kReflect101 };
VideoPad ParseVideoPad(const std::string& name);  // DALI's names and aliases (repeat, symmetric, reflect)

// Adds color_conversion ("dali" or "pyav": kernels::VideoConversion) to `schema`; reads it.
OpSchema& AddVideoConversionArg(OpSchema& schema);
kernels::VideoConversion ParseVideoConversion(const Operator& op);

// Adds pad_mode (default `pad_default`), fill_value, max_pixels, color_conversion (and image_type
// when `image_type`) to `schema`.
OpSchema& AddVideoClipArgs(OpSchema& schema, bool image_type, const std::string& pad_default);

// The stream frame each clip frame shows: start + i * stride for i < length, frames at or past
// `frames` (the stream's count) mapped by `pad` (-1: the fill value; kNone: dropped, the clip is
// shorter). start < frames.
std::vector<int64_t> ClipFrames(int64_t start, int64_t length, int64_t stride, int64_t frames, VideoPad pad);

class VideoDecoding {
 public:
  using ParallelFor = std::function<void(const std::function<void(int, int)>&)>;
  // The clip of one sample, chosen once its stream's index is known.
  using ClipFn = std::function<std::vector<int64_t>(int sample, const kernels::VideoIndex& index)>;

  // Reads the arguments of AddVideoClipArgs (image_type: whether the schema has it, else RGB);
  // replace_on_error from the operator's on_error.
  VideoDecoding(const Operator& op, bool replace_on_error, bool image_type);
  // The same settings given directly (an operator without the clip arguments): `fill` holds one
  // value per channel of `color`.
  VideoDecoding(kernels::VideoColor color, std::vector<uint8_t> fill, int64_t max_pixels, bool replace_on_error,
                kernels::VideoConversion conversion = kernels::VideoConversion::kDali)
      : color_(color), conversion_(conversion), fill_(std::move(fill)), max_pixels_(max_pixels),
        replace_on_error_(replace_on_error) {}

  // One sample: encoded bytes in memory (decoders.video) or a file with its index (readers).
  struct Sample {
    std::span<const uint8_t> bytes;
    std::string path;
    std::shared_ptr<const kernels::VideoIndex> index;
    SourceInfo source;
  };

  // Opens (and indexes, when not given) every sample and plans its clip. Returns the output's
  // descriptor: FHWC uint8 (F the clip's length, C from image_type). Errors name the source.
  OutputDesc Setup(const std::vector<Sample>& samples, const ClipFn& clip, const ParallelFor& for_each);
  // Decodes every planned clip into `out`; with on_error="replace", fills each failed sample with a
  // copy of the next one that decoded and reports it (the executor replaces the row).
  void Run(const Workspace& ws, const std::vector<Sample>& samples, TensorList& out, const ParallelFor& for_each);

  // After Setup: sample i's clip (-1: fill) and index (null when it failed).
  const std::vector<int64_t>& clip(int i) const { return plans_[static_cast<size_t>(i)].frames; }
  const kernels::VideoIndex* index(int i) const { return plans_[static_cast<size_t>(i)].index.get(); }
  bool failed(int i) const { return !plans_[static_cast<size_t>(i)].error.empty(); }
  // After Run: the failed samples and their stand-ins, for outputs the caller fills itself.
  const std::vector<std::pair<int, int>>& replacements() const { return replacements_; }
  int64_t max_pixels() const { return max_pixels_; }

 private:
  struct Plan {
    std::unique_ptr<kernels::VideoDecoder> decoder;  // kept from Setup to Run
    std::shared_ptr<const kernels::VideoIndex> index;
    std::vector<int64_t> frames;
    std::string error;  // non-empty: failed (on_error="replace")
  };
  void Guard(const Sample& s, int i, const std::function<void()>& fn);
  void DecodeClip(const Sample& s, Plan& p, uint8_t* out) const;

  kernels::VideoColor color_;
  kernels::VideoConversion conversion_;
  std::vector<uint8_t> fill_;
  int64_t max_pixels_;
  bool replace_on_error_;
  std::vector<Plan> plans_;
  std::vector<std::pair<int, int>> replacements_;
};

}  // namespace sluice
