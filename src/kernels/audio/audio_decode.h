// Decoding of one encoded audio stream held in memory (DALI's decoders.audio, without its resampling
// and downmixing: kernels/audio/resample.h, downmix.h), with libsndfile reading the bytes through
// its virtual I/O: nothing is copied, nothing is written. Formats: what this libsndfile reads -- WAV
// (integer PCM 8 to 32 bits, float, double, A-law, mu-law, ADPCM), FLAC, Ogg Vorbis and Opus, AIFF,
// AU, ..., and MP3 where it was built with mpg123 (AudioFormatAvailable tells at run time).
//
// Two steps, so that an operator sizes its outputs before decoding: PeekAudio reads and checks the
// header; DecodeAudio decodes a range of frames into the caller's buffer. Samples are interleaved
// (frame t, channel c at t * channels + c).
//
// Sample values, per output type (libsndfile's conversions, hence DALI's and python-soundfile's):
//   float32  integer PCM divided by 2^(bits-1) (PCM16: x / 32768); float PCM and the lossy codecs
//            as decoded (not clipped);
//   int16,   integer PCM shifted to the width (PCM24 -> int16 drops the low 8 bits, PCM16 -> int32
//   int32    is x << 16); lossy codecs as libsndfile scales them (about x * 32767 / x * 2^31);
//            float and double PCM: x * 32767 (x * 2147483647) rounded to nearest even and
//            saturated, DALI's ConvertSatNorm (libsndfile itself would round x, giving 0 for |x|<0.5).
//
// Errors (sluice::Error with the reason; the caller adds the operator and the sample's source):
// empty input, bytes libsndfile does not recognise or a codec it does not implement, a stream of
// unknown length (a truncated Ogg stream has no final page), no samples, more samples than
// max_samples (refused from the header, before anything is allocated), a WAV data chunk cut short,
// an RF64 stream whose ds64 chunk declares more data bytes than the input holds or more frames than
// its data holds or than max_samples (libsndfile would clamp them silently), and a stream that
// decodes to fewer frames than its header declares (truncated or corrupt).
//
// Thread-safety: reentrant; every call opens its own libsndfile handle. No allocation beyond
// libsndfile's own and, for float PCM decoded to integers, one 16 KiB buffer.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

// The default limit on the samples (frames x channels) of one decoded stream: 2^30 (4 GiB as
// float32, over 3 hours of 48 kHz stereo).
inline constexpr int64_t kDefaultMaxAudioSamples = int64_t{1} << 30;

struct AudioInfo {
  int64_t frames = 0;   // samples per channel
  int channels = 0;
  int sample_rate = 0;  // Hz
  int format = 0;       // libsndfile's SF_FORMAT_* (container | encoding)
  bool float_pcm = false;  // float or double PCM samples (scaled when decoded to integers)
  int64_t num_samples() const { return frames * channels; }
};

// Reads the header of `bytes` and checks it (see the errors above). max_samples > 0.
AudioInfo PeekAudio(std::span<const uint8_t> bytes, int64_t max_samples = kDefaultMaxAudioSamples);

// Decodes frames [first_frame, first_frame + num_frames) of the stream PeekAudio described into
// `out`: num_frames * info.channels samples of `type` (kInt16, kInt32 or kFloat32), interleaved.
// Throws when the stream ends or fails before num_frames frames were decoded.
void DecodeAudio(std::span<const uint8_t> bytes, const AudioInfo& info, int64_t first_frame, int64_t num_frames,
                 DType type, void* out);

// "WAV (Microsoft), Signed 16 bit PCM": the container and encoding, as libsndfile names them.
std::string AudioFormatName(int format);

// Whether this libsndfile decodes a container ("WAV", "FLAC", "OGG", "MP3", ...), asked at run time.
bool AudioFormatAvailable(const std::string& container);
// The containers this libsndfile reads, by their short names ("WAV", "FLAC", "OGG", ...).
std::vector<std::string> AudioFormatsAvailable();

}  // namespace sluice::kernels
