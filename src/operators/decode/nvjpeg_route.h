// Which decoder each sample of decoders.image*(device="mixed") goes to: nvJPEG's hardware engine,
// its hybrid backends, or Sluice's own host decoder (operators/decode/decoder_base.h) followed by an
// upload. Pure host logic, built with or without CUDA so that every rule is tested on any machine;
// operators/gpu/nvjpeg_decoder.h asks nvJPEG itself as well (nvjpegDecodeBatchedSupportedEx and
// nvjpegDecoderJpegSupported) before it trusts a hardware or GPU-Huffman route.
//
// The rules, most restrictive first (DALI's, where DALI has one):
//   host       not a JPEG; CMYK/YCCK or other than 1 or 3 components; precision other than 8 bits;
//              lossless, arithmetic-coded or hierarchical frames; an unknown chroma layout; an EXIF
//              orientation to apply; output_type YCbCr (nvJPEG's YUV output is planar and
//              subsampled); a decode at reduced DCT scale; a sample whose header failed (on_error).
//   hardware   baseline/extended Huffman, one scan, 4:4:4, 4:2:2, 4:2:0, 4:4:0 or gray, when the
//              device has JPEG engines; hw_decoder_load of the batch at most (SplitHardwareLoad).
//   gpu_hybrid sequential Huffman frames above hybrid_huffman_threshold pixels: Huffman decoding
//              on the GPU (NVJPEG_BACKEND_GPU_HYBRID).
//   hybrid     the rest (progressive included): Huffman on Sluice's thread pool, IDCT and colour
//              conversion on the GPU (NVJPEG_BACKEND_HYBRID).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/decode/image_decoder.h"
#include "kernels/decode/jpeg_frame.h"

namespace sluice {

enum class JpegBackend : uint8_t { kHardware, kGpuHybrid, kHybrid, kHost };
const char* ToString(JpegBackend b);

struct NvjpegRouteOptions {
  bool hardware_available = false;             // the device has JPEG engines (nvJPEG's hardware backend opened)
  int64_t hybrid_huffman_threshold = 1000000;  // pixels (DALI's default)
  kernels::OutputColor output_type = kernels::OutputColor::kRGB;
};

struct JpegRoute {
  JpegBackend backend = JpegBackend::kHost;
  const char* reason = "";  // why (static text), for logs and the routing listing
  bool hardware_eligible = false;  // the frame suits the hardware engine (before the load split)
};

// The route of one sample from its bytes, the decoder's peek (ImageInfo) and plan.
JpegRoute RouteJpeg(std::span<const uint8_t> bytes, const kernels::ImageInfo& info, const kernels::DecodePlan& plan,
                    const NvjpegRouteOptions& options);

// hw_decoder_load (0..1): the hardware engine takes round(load * batch size) samples at most, the
// first hardware-eligible ones in batch order (deterministic); the other eligible samples go to
// the hybrid backends (GPU Huffman above the threshold, as RouteJpeg would have chosen).
void SplitHardwareLoad(std::vector<JpegRoute>& routes, double hw_decoder_load,
                       const std::vector<int64_t>& pixels, int64_t hybrid_huffman_threshold);

}  // namespace sluice
