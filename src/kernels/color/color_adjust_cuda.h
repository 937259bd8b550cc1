// The colour adjustments on the GPU (color.cu): color_adjust.h's ColorAffine and
// ColorMatrix3 on a batch, bit for bit (the same float32 operations in the same order, no fused
// multiply-add, the same conversion of the result).
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. One launch per batch, one descriptor per sample.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// out[i] = convert(in[i] * mul + add) for n elements (brightness, contrast, brightness_contrast).
struct ColorAffineDesc {
  const void* in;
  void* out;
  int64_t n;
  float mul, add;
};
// in and out: uint8, int16, int32, float16 or float32 (ColorKernelSupports).
void LaunchColorAffine(const ColorAffineDesc* descs, int num_samples, int64_t max_elements, DType in_type,
                       DType out_type, void* stream);

// out pixel = convert(M * in pixel + offset) for `pixels` interleaved RGB pixels (hsv, hue,
// saturation, color_twist).
struct ColorMatrixDesc {
  const void* in;
  void* out;
  int64_t pixels;
  float m[3][3];
  float offset[3];
};
void LaunchColorMatrix3(const ColorMatrixDesc* descs, int num_samples, int64_t max_pixels, DType in_type,
                        DType out_type, void* stream);

}  // namespace sluice::kernels::cuda
