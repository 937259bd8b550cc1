// JPEG compression artifacts (DALI `jpeg_compression_distortion`): a real baseline JPEG encode at
// `quality` followed by a decode, through libjpeg-turbo's libjpeg API (the library the decoders
// use). Encoding: libjpeg's defaults for the quality (jpeg_set_quality(q, force_baseline=TRUE)),
// YCbCr with 4:2:0 chroma subsampling for 3 channels (what OpenCV's imencode, DALI's CPU
// implementation, and Pillow's default save do), grayscale for 1 channel; decoding: ISLOW IDCT and
// fancy upsampling (libjpeg's defaults). uint8 HWC only; `quality` is clamped to [1, 100].
// Thread-safety: reentrant; allocates the compressed stream.
#pragma once
#include <cstdint>

namespace sluice::kernels {

// in/out: height x width x channels (1 or 3) uint8; may not overlap. Throws sluice::Error.
void JpegDistort(const uint8_t* in, int height, int width, int channels, int quality, uint8_t* out);

}  // namespace sluice::kernels
