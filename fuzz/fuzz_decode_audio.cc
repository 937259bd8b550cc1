// libFuzzer target: the audio decoder (kernels/audio/audio_decode.h) on arbitrary bytes, then the
// downmix and the resampler on what it decoded, as decoders.audio chains them. Must never crash;
// malformed input may only throw sluice::Error. A stream it accepts must be sane: frames, channels
// and rate positive, within the sample limit, and every frame it declares decodes.
// Seed corpus: fuzz/audio_seeds/ (WAV of every PCM width, float, mu-law, ADPCM; AIFF, AU, FLAC,
// Ogg Vorbis, MP3; written by tests/data/audio/make_test_audio.py).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <sluice/error.h>

#include "kernels/audio/audio_decode.h"
#include "kernels/audio/downmix.h"
#include "kernels/audio/resample.h"

namespace {

// 4 MiB of float32: the fuzzer's memory limit is far above, a decompression bomb is refused.
constexpr int64_t kMaxSamples = int64_t{1} << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::kernels;
  const std::span<const uint8_t> bytes(data, size);
  AudioInfo info;
  try {
    info = PeekAudio(bytes, kMaxSamples);
  } catch (const sluice::Error&) {
    return 0;
  }
  if (info.frames <= 0 || info.channels <= 0 || info.sample_rate <= 0 || info.num_samples() > kMaxSamples)
    __builtin_trap();
  try {
    std::vector<float> audio(static_cast<size_t>(info.num_samples()));
    DecodeAudio(bytes, info, 0, info.frames, sluice::DType::kFloat32, audio.data());
    // A range as integers, from the middle (seeking).
    const int64_t first = info.frames / 3, count = std::min<int64_t>(info.frames - first, 4096);
    std::vector<int16_t> part(static_cast<size_t>(count * info.channels));
    DecodeAudio(bytes, info, first, count, sluice::DType::kInt16, part.data());
    // Downmix in place and resample to 16 kHz, as decoders.audio(downmix=True, sample_rate=16000).
    DownmixToMono(audio.data(), info.frames, info.channels, audio.data());
    const int64_t out_frames = ResampledLength(info.frames, info.sample_rate, 16000);
    if (out_frames <= kMaxSamples) {
      std::vector<float> out(static_cast<size_t>(out_frames));
      Resampler(info.sample_rate, 16000, 3 + static_cast<int>(size % 14))
          .Resample(audio.data(), info.frames, 1, out.data(), sluice::DType::kFloat32, out_frames);
    }
  } catch (const sluice::Error&) {
  }
  return 0;
}
