// What the image decoders (decoders.image, .image_random_crop, .image_crop) share, on every
// backend: argument parsing, the decode window, the two-phase peek/plan -> decode over the batch,
// and on_error="replace". ImageDecoding is the component; the CPU operator (ImageDecoderOp) runs
// it into its outputs, the mixed one (operators/tensor/copy_mixed.cc) into pinned host buffers that it
// then uploads.
#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/decode/image_decoder.h"
#include "operators/decode/roi_rule.h"
#include "operators/operator.h"

namespace sluice {

// Adds the arguments every decoder takes to `schema`. `windowed`: the decoder decodes a window of
// each image (image_crop, image_random_crop, image_slice): its scaled decode is opt-in
// (scaled_decode defaults to false) and documented for a window.
OpSchema& AddDecoderArgs(OpSchema& schema, bool windowed = false);
// The decoder `op`'s output_type argument.
kernels::OutputColor DecoderOutputColor(const Operator& op);
// DALIImageType's spellings in its order (types.RGB = 0 names "RGB": an Enum with int_aliases), and
// the colour each names (a name from that list; readers.sequence's image_type).
const std::vector<std::string>& ImageTypeNames();
kernels::OutputColor ImageTypeColor(const std::string& name);

// Where a decoder decodes each image: the whole image, DALI's random-resized-crop window, or a
// fixed crop (decoders.cc).
class DecodeWindow {
 public:
  virtual ~DecodeWindow() = default;
  // Per-sample argument inputs are read once per batch here, before Window is called.
  virtual void PrepareBatch(const Operator& op, const Workspace& ws) {}
  // The window for sample i, in oriented full-resolution coordinates, given the image's oriented
  // extents; nullopt decodes the whole image. Called from worker threads (must be thread-safe; use
  // ws.SampleRng(i) for randomness).
  virtual std::optional<kernels::CropWindow> Window(const Operator& op, const Workspace& ws, int sample, int height,
                                                    int width) const = 0;
};

// The window of the decoder `op` (by its operator type), built from its arguments. In decoders.cc.
std::unique_ptr<DecodeWindow> MakeDecodeWindow(const Operator& op);

// Host decoding of one batch of encoded images (input 0 of the workspace).
class ImageDecoding {
 public:
  // Runs fn(sample, thread) for every sample of the batch (the operator's ForEachSample).
  using ParallelFor = std::function<void(const std::function<void(int, int)>&)>;

  // reduced_scale=false ignores decode_size_hint (a decoder that may not decode on the host: nvJPEG
  // decodes at full resolution only).
  explicit ImageDecoding(const Operator& op, bool reduced_scale = true);
  // Peeks at every sample and plans its decode; returns the output's descriptor.
  OutputDesc Setup(const Operator& op, const Workspace& ws, const ParallelFor& for_each);
  // With a ROI-decode rule (decoders.image's roi_decode_rule, set by pipeline/roi_decode.h) Setup
  // plans only the window of each JPEG that the consumers read, and the decoder has a second
  // output: per sample [y, x, full_height, full_width] of that window (int64; the whole image for
  // other formats).
  bool has_roi_rule() const { return roi_rule_ != nullptr; }
  OutputDesc WindowDesc() const;
  // After Run: the windows of the batch (failed samples replaced like their images).
  void WriteWindows(TensorList& out) const;
  // Decodes into `out` (host, sized from Setup's descriptor); with on_error="replace", fills the
  // samples that failed with a copy of another sample (resizing them) so that the operators after
  // it can run, and reports them (Workspace::ReportFailedSample): the executor then replaces the
  // whole row in every output of the pipeline (pipeline/sample_replacement.h).
  void Run(const Operator& op, const Workspace& ws, TensorList& out, const ParallelFor& for_each);

  bool replace_on_error() const { return replace_on_error_; }

  // Sample by sample, for a decoder that sends some samples elsewhere (the mixed decoder):
  // after Setup, what it planned for sample i;
  const kernels::ImageInfo& info(int i) const { return samples_[static_cast<size_t>(i)].info; }
  const kernels::DecodePlan& plan(int i) const { return samples_[static_cast<size_t>(i)].plan; }
  const kernels::DecodeParams& params(int i) const { return samples_[static_cast<size_t>(i)].params; }
  bool failed(int i) const { return !samples_[static_cast<size_t>(i)].error.empty(); }
  // decodes sample i into `out` as Run does (thread-safe across samples; a failure is recorded
  // with on_error="replace", thrown otherwise);
  void DecodeSample(const Workspace& ws, int i, TensorList& out);
  // with on_error="replace", once every sample was decoded: the failed samples and the sample that
  // stands in for each, as (failed, stand-in) pairs, reported to the workspace (throws when nothing
  // decoded). The caller copies the stand-ins.
  std::vector<std::pair<int, int>> Replacements(const Operator& op, const Workspace& ws);

 private:
  struct SampleState {
    kernels::ImageInfo info;
    kernels::DecodeParams params;
    kernels::DecodePlan plan;
    std::string error;  // non-empty: failed (on_error="replace")
    std::array<int64_t, 4> window{};  // with a ROI rule: y, x, full height, full width
  };
  void ReplaceFailed(const Operator& op, const Workspace& ws, TensorList& out);

  kernels::DecodeParams base_;
  bool replace_on_error_ = false;
  std::unique_ptr<DecodeWindow> window_;
  std::unique_ptr<RoiRule> roi_rule_;
  std::vector<SampleState> samples_;
};

// The CPU decoders: ImageDecoding into the operator's output.
class ImageDecoderOp final : public Operator {
 public:
  explicit ImageDecoderOp(const OpSpec& spec) : Operator(spec), decoding_(*this) {}
  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override;

 private:
  ImageDecoding decoding_;
};

}  // namespace sluice
