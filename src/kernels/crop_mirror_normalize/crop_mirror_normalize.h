// Fused crop + horizontal mirror + per-channel normalize + layout (HWC or CHW) + channel pad +
// output type conversion, in one pass over the output (DALI crop_mirror_normalize):
//   out[c] = (in[c] - mean[c]) * (scale / std[c]) + shift
// computed as in * a[c] + b[c] with a = scale/std, b = shift - mean*a (float32).
// Pixels of the crop window that fall outside the image get fill_values[c] (an *output* value, not
// normalized). With pad_output the extra last channel is 0. Integer outputs round to nearest
// (ties to even) and saturate; float16 rounds to nearest even.
//
// The kernel assumes valid input: mean, stddev and fill_values hold 0, 1 or C values, stddev is
// non-zero, 1 <= C <= 4 (the operator's plan checks these; see operators/crop_mirror_normalize/crop_mirror_normalize_plan.h).
// Thread-safety: reentrant, no allocation. Buffers: `in` is H*W*C (HWC, packed rows); `out` must
// hold CmnOutputElements(params, C) elements of `out_type`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "sluice/dtype.h"

namespace sluice::kernels {

enum class CmnLayout : uint8_t { kHWC, kCHW };

struct CmnParams {
  int crop_x = 0, crop_y = 0;    // anchor in the input; may be negative or past the edge
  int crop_w = 0, crop_h = 0;    // output extents (> 0)
  bool mirror = false;           // horizontal flip of the cropped window
  std::span<const float> mean;   // 1 or C values (empty = 0)
  std::span<const float> stddev; // 1 or C values (empty = 1), non-zero
  float scale = 1.f, shift = 0.f;
  CmnLayout layout = CmnLayout::kCHW;
  bool pad_output = false;       // one extra output channel filled with 0
  std::span<const float> fill_values;  // 1 or C values for out-of-bounds pixels (empty = 0)
};

// Output channels (C, or C+1 with pad_output) and element count.
int CmnOutputChannels(const CmnParams& p, int channels);
size_t CmnOutputElements(const CmnParams& p, int channels);

// The per-channel map out = in * a[c] + b[c] (a = scale / std, b = shift - mean * a) and the fill
// values of `p` for `channels` channels: the kernel's own floats, for other backends to use.
struct CmnCoefficients {
  float a[4] = {}, b[4] = {}, fill[4] = {};
};
CmnCoefficients CmnNormalization(const CmnParams& p, int channels);

// True where the kernel evaluates in * a + b as a fused multiply-add (its SIMD rows: uint8 RGB
// input, CHW or HWC without the pad channel); elsewhere as a rounded product, then a rounded sum.
bool CmnFusedRows(DType in_type, int channels, const CmnParams& p);

// out_type: kFloat32, kFloat16, kUInt8 or kInt8 (others throw sluice::Error).
void CropMirrorNormalize(const uint8_t* in, int height, int width, int channels, const CmnParams& p,
                         DType out_type, void* out);
// Same for float input (out-of-range values saturate for integer outputs).
void CropMirrorNormalize(const float* in, int height, int width, int channels, const CmnParams& p,
                         DType out_type, void* out);

}  // namespace sluice::kernels
