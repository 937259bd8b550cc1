// Downmixing of interleaved multi-channel audio to one channel (DALI's decoders.audio and
// readers.nemo_asr `downmix`): out[t] = the mean of in[t * channels + c] over the channels, with
// equal weights, computed in double and rounded once to the type: float32 to nearest, int16 and
// int32 to nearest even and saturated (the mean of integers never leaves their range, so this is
// the exactly rounded mean). One channel copies.
// Thread-safety: reentrant, no allocation. `in` holds frames * channels samples of `type` (kInt16,
// kInt32 or kFloat32), `out` frames samples; out may be `in` itself (each out[t] is written after
// in[t * channels ...] was read, and t <= t * channels), other overlaps are not allowed.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels {

void DownmixToMono(const void* in, DType type, int64_t frames, int channels, void* out);

}  // namespace sluice::kernels
