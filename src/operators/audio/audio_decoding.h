// What decoders.audio and readers.nemo_asr share: their decoding arguments (DALI's sample_rate,
// downmix, dtype, quality; Sluice's max_samples) and AudioDecoding, which decodes a batch of
// encoded audio into one output -- peek and plan every sample in Setup (the output's shapes), then
// decode, downmix and resample each on the operator's threads -- with on_error="replace" as the
// image decoders do it (operators/decode/decoder_base.h).
//
// Output: samples x channels ("TC", interleaved) of dtype; one dimension ("T") when downmixing, as
// DALI's. Sample rates: float32 scalars, the rate of the audio output (the target rate when it
// was resampled).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/audio/audio_decode.h"
#include "operators/operator.h"

namespace sluice {

struct AudioDecodingDefaults {
  bool downmix;
  double sample_rate;
  bool sample_rate_per_sample;
};
// Adds sample_rate, downmix, dtype, quality and max_samples to `schema`.
OpSchema& AddAudioDecodingArgs(OpSchema& schema, const AudioDecodingDefaults& defaults);

// The frames of each stream to decode, in seconds as NeMo's manifests give them (DALI's rule):
// from floor(offset * rate), floor(duration * rate) frames (negative duration: to the end), cut at
// the stream's end.
struct AudioClip {
  double offset = 0;
  double duration = -1;
};

class AudioDecoding {
 public:
  // Runs fn(sample, thread) for every sample of the batch (the operator's ForEachSample).
  using ParallelFor = std::function<void(const std::function<void(int, int)>&)>;

  // Reads the arguments of AddAudioDecodingArgs; replace_on_error from the operator's on_error.
  AudioDecoding(const Operator& op, bool replace_on_error);

  // What the caller knows of each sample: its bytes, where they came from (errors name it), and
  // optionally a note appended to its error messages (readers.nemo_asr: the manifest line).
  struct Sample {
    std::span<const uint8_t> bytes;
    SourceInfo source;
    std::string note;
  };

  // Peeks at and plans every sample: target_rates[i] is sample i's output rate (<= 0 or the
  // stream's own: not resampled), clips (may be null) the part to decode. Returns the audio
  // output's descriptor. Errors name the source (thrown with on_error="raise", recorded with
  // "replace").
  OutputDesc Setup(const std::vector<Sample>& samples, const std::vector<double>& target_rates,
                   const std::vector<AudioClip>* clips, const ParallelFor& for_each);
  // The sample rates output: float32 scalars.
  OutputDesc RatesDesc() const;

  // Decodes every sample planned by Setup into `audio` (sized from Setup's descriptor) and its
  // rate into `rates`; with on_error="replace", then fills each failed sample with a copy of the
  // next one that decoded and reports it (Workspace::ReportFailedSample; the executor replaces the
  // whole row). A batch where nothing decodes is an error. `samples` must be Setup's.
  void Run(const Workspace& ws, const std::vector<Sample>& samples, TensorList& audio, TensorList& rates,
           const ParallelFor& for_each);

  // After Run: the failed samples and their stand-ins, for outputs the caller fills itself.
  const std::vector<std::pair<int, int>>& replacements() const { return replacements_; }

 private:
  struct SamplePlan {
    kernels::AudioInfo info;
    int64_t first_frame = 0, frames = 0;  // the part decoded
    double out_rate = 0;                  // the output's rate (== info.sample_rate: no resampling)
    int64_t out_frames = 0;
    int out_channels = 0;
    std::string error;  // non-empty: failed (on_error="replace")
  };
  void DecodeSample(std::span<const uint8_t> bytes, const SamplePlan& p, void* out, std::vector<uint8_t>& scratch) const;
  // Runs fn for sample i; its sluice::Error is rethrown naming the sample's source (and note), or
  // with on_error="replace" recorded in plans_[i].error.
  void Guard(const Sample& s, int i, const std::function<void()>& fn);

  DType dtype_;
  bool downmix_;
  int lobes_;
  int64_t max_samples_;
  bool replace_on_error_;
  std::vector<SamplePlan> plans_;
  std::vector<std::vector<uint8_t>> scratch_;  // per thread
  std::vector<std::pair<int, int>> replacements_;
};

}  // namespace sluice
