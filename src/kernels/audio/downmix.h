// Downmixing of interleaved multi-channel audio to one channel (DALI's decoders.audio and
// readers.nemo_asr `downmix`), with DALI's arithmetic: in float32, out[t] = sum over the channels
// of in[t * channels + c] * (1.0f / channels), summed in channel order. Integer outputs are made as
// DALI makes them: the decoded float samples are downmixed, then stored with StoreNormalized
// (normalized_convert.h), so the mean of int16 samples 11585 and -6270 is 2657 (2657.5 * 32767 /
// 32768, rounded), not 2658. One channel copies.
// Thread-safety: reentrant, no allocation. `in` holds frames * channels floats, `out` frames; out
// may be `in` itself (each out[t] is written after in[t * channels ...] was read, and t <= t *
// channels), other overlaps are not allowed.
#pragma once
#include <cstdint>

namespace sluice::kernels {

void DownmixToMono(const float* in, int64_t frames, int channels, float* out);

}  // namespace sluice::kernels
