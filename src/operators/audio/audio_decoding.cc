#include "operators/audio/audio_decoding.h"

#include <algorithm>
#include <cstring>

#include "kernels/audio/downmix.h"
#include "kernels/audio/normalized_convert.h"
#include "operators/stand_in_samples.h"
#include "kernels/audio/resample.h"

namespace sluice {

OpSchema& AddAudioDecodingArgs(OpSchema& s, const AudioDecodingDefaults& d) {
  return s
      .Arg("sample_rate", ArgType::kFloat, d.sample_rate,
           "The rate in Hz to resample the audio to (windowed-sinc, see `quality`); 0 or less keeps each "
           "stream's own rate.",
           d.sample_rate_per_sample)
      .Arg("downmix", ArgType::kBool, d.downmix,
           "Average all channels into one: the output is then 1-D (\"T\"). Otherwise it is 2-D, samples x "
           "channels (\"TC\", interleaved), one-channel audio included.")
      .Arg("dtype", ArgType::kDType, std::string("float32"),
           "Output type: int16, int32 or float32. float32 holds integer PCM divided by 2^(bits-1); integer "
           "outputs hold integer PCM shifted to their width, and float audio (float PCM, resampled or lossy "
           "streams) times 32767 or 2147483647, rounded and saturated.")
      .Enum({"int16", "int32", "float32"})
      .Arg("quality", ArgType::kFloat, 50.0,
           "Resampling quality, 0 (lowest) to 100 (highest): 0 gives 3 lobes of the sinc filter, 50 gives 16 and "
           "100 gives 64.")
      .Range(0, 100)
      .Arg("max_samples", ArgType::kInt, kernels::kDefaultMaxAudioSamples,
           "Largest stream accepted, in samples (frames x channels), before and after resampling: a header "
           "declaring more is an error before any memory is allocated (2^30 by default: 4 GiB of float32).")
      .Min(1);
}

AudioDecoding::AudioDecoding(const Operator& op, bool replace_on_error)
    : dtype_(op.Arg<DType>("dtype")),
      downmix_(op.Arg<bool>("downmix")),
      lobes_(kernels::ResamplingLobes(op.Arg<double>("quality"))),
      max_samples_(op.Arg<int64_t>("max_samples")),
      replace_on_error_(replace_on_error) {}

void AudioDecoding::Guard(const Sample& s, int i, const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string msg = s.note.empty() ? e.message() : e.message() + " (" + s.note + ")";
    if (replace_on_error_) {
      plans_[static_cast<size_t>(i)].error = msg;
      return;
    }
    Error::Context c = e.context();
    if (c.source.empty()) c.source = s.source.ToString();
    throw Error(msg, c);
  }
}

OutputDesc AudioDecoding::Setup(const std::vector<Sample>& samples, const std::vector<double>& target_rates,
                                const std::vector<AudioClip>* clips, const ParallelFor& for_each) {
  const size_t n = samples.size();
  plans_.assign(n, SamplePlan{});
  for_each([&](int i, int) {
    const Sample& s = samples[static_cast<size_t>(i)];
    SamplePlan& p = plans_[static_cast<size_t>(i)];
    Guard(s, i, [&] {
      p.info = kernels::PeekAudio(s.bytes, max_samples_);
      p.first_frame = 0;
      p.frames = p.info.frames;
      const double rate = p.info.sample_rate;
      if (clips) {
        // DALI's rule (NeMo's offset and duration, in seconds): floor(seconds * rate) frames, cut at
        // the end. A bare floor, as DALI 2.4 (checked against it): a duration written as frames / rate
        // whose product lands just below the integer (about 1% of them) loses the last frame there too.
        const AudioClip& clip = (*clips)[static_cast<size_t>(i)];
        const auto to_frames = [rate](double seconds) { return static_cast<int64_t>(std::min(seconds * rate, 9e18)); };
        if (clip.offset > 0) p.first_frame = to_frames(clip.offset);
        if (clip.duration >= 0) p.frames = to_frames(clip.duration);
        if (p.first_frame >= p.info.frames || p.frames > p.info.frames - p.first_frame)
          p.frames = std::max<int64_t>(0, p.info.frames - p.first_frame);
        if (p.frames <= 0)
          throw Error("the clip at offset " + std::to_string(clip.offset) + " s, duration " +
                      std::to_string(clip.duration) + " s holds no samples of the " + std::to_string(p.info.frames) +
                      "-frame stream");
      }
      const double target = target_rates[static_cast<size_t>(i)];
      p.out_rate = target > 0 ? target : rate;
      p.out_channels = downmix_ ? 1 : p.info.channels;
      p.out_frames = p.out_rate == rate ? p.frames : kernels::ResampledLength(p.frames, rate, p.out_rate);
      if (p.out_frames > max_samples_ / p.out_channels)
        throw Error("resampling from " + std::to_string(p.info.sample_rate) + " Hz to " + std::to_string(p.out_rate) +
                    " Hz gives " + std::to_string(p.out_frames) + " frames of " + std::to_string(p.out_channels) +
                    " channels, more than max_samples (" + std::to_string(max_samples_) + ")");
    });
  });
  OutputDesc d;
  d.dtype = dtype_;
  d.layout = downmix_ ? "T" : "TC";
  for (const SamplePlan& p : plans_) {
    const int64_t frames = p.error.empty() ? p.out_frames : 0;
    d.shapes.push_back(downmix_ ? TensorShape{frames} : TensorShape{frames, std::max(1, p.out_channels)});
  }
  return d;
}

OutputDesc AudioDecoding::RatesDesc() const {
  OutputDesc d;
  d.dtype = DType::kFloat32;
  d.shapes.assign(plans_.size(), TensorShape{});
  d.contiguous = true;
  return d;
}

void AudioDecoding::DecodeSample(std::span<const uint8_t> bytes, const SamplePlan& p, void* out,
                                 std::vector<uint8_t>& scratch) const {
  const int channels = p.info.channels;
  const bool resample = p.out_rate != p.info.sample_rate;
  const bool mix = downmix_ && channels > 1;
  if (!resample && !mix) {
    kernels::DecodeAudio(bytes, p.info, p.first_frame, p.frames, dtype_, out);
    return;
  }
  // Downmixed or resampled: decoded as float and averaged in place (DALI's order and arithmetic,
  // whatever the output type), then stored or resampled into the output type.
  scratch.resize(static_cast<size_t>(p.frames * channels) * sizeof(float));
  auto* f = reinterpret_cast<float*>(scratch.data());
  kernels::DecodeAudio(bytes, p.info, p.first_frame, p.frames, DType::kFloat32, f);
  if (mix) kernels::DownmixToMono(f, p.frames, channels, f);
  if (!resample) {
    kernels::StoreNormalized(f, p.frames, dtype_, out);
    return;
  }
  kernels::Resampler(p.info.sample_rate, p.out_rate, lobes_)
      .Resample(f, p.frames, mix ? 1 : channels, out, dtype_, p.out_frames);
}

void AudioDecoding::Run(const Workspace& ws, const std::vector<Sample>& samples, TensorList& audio, TensorList& rates,
                        const ParallelFor& for_each) {
  scratch_.resize(static_cast<size_t>(ws.pool().num_threads()) + 1);
  for_each([&](int i, int thread) {
    const SamplePlan& p = plans_[static_cast<size_t>(i)];
    if (p.error.empty()) {
      Guard(samples[static_cast<size_t>(i)], i, [&] {
        DecodeSample(samples[static_cast<size_t>(i)].bytes, p, audio.raw_mutable_sample(i), scratch_[static_cast<size_t>(thread)]);
      });
    }
    *rates.mutable_sample<float>(i) = static_cast<float>(p.out_rate);
  });
  replacements_.clear();
  if (!replace_on_error_) return;
  replacements_ = PickStandIns(
      static_cast<int>(plans_.size()), [&](int i) -> const std::string& { return plans_[static_cast<size_t>(i)].error; },
      [&](int i) -> const SourceInfo& { return samples[static_cast<size_t>(i)].source; }, ws);
  CopyStandIns(replacements_, audio, ws);
  for (const auto& [i, r] : replacements_) *rates.mutable_sample<float>(i) = *rates.sample<float>(r);
}

}  // namespace sluice
