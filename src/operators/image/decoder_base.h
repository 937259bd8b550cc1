// What the image decoders (decoders.image, .image_random_crop, .image_crop) share: argument
// parsing, the two-phase peek/plan -> decode over the batch, and on_error="replace".
#pragma once
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernels/decode/image_decoder.h"
#include "operators/operator.h"

namespace sluice {

// Adds the arguments every decoder takes to `schema`.
OpSchema& AddDecoderArgs(OpSchema& schema);

class ImageDecoderBase : public Operator {
 public:
  explicit ImageDecoderBase(const OpSpec& spec);
  std::vector<OutputDesc> Setup(Workspace& ws) final;
  void Run(Workspace& ws) final;
  std::vector<SampleErrorRecord> error_log() const override;
  int64_t replaced_samples() const override;

 protected:
  // The decode window for sample i, in oriented full-resolution coordinates, given the image's
  // oriented extents; nullopt decodes the whole image. Called once per sample per batch, from
  // worker threads (must be thread-safe; use ws.SampleRng(i) for randomness).
  virtual std::optional<kernels::CropWindow> Window(const Workspace& ws, int sample, int height, int width) = 0;
  // Per-sample argument inputs are read once per batch here, before Window is called.
  virtual void PrepareBatch(const Workspace& ws) {}

 private:
  struct SampleState {
    kernels::DecodeParams params;
    kernels::DecodePlan plan;
    std::string error;  // non-empty: failed (on_error="replace")
  };
  void Fail(int sample, const std::string& what);
  void ReplaceFailed(Workspace& ws);

  kernels::DecodeParams base_;
  bool replace_on_error_ = false;
  std::vector<SampleState> samples_;
  mutable std::mutex log_mu_;
  std::deque<SampleErrorRecord> log_;
  int64_t replaced_ = 0;
};

}  // namespace sluice
