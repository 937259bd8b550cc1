// color_space_conversion on the GPU (color.cu): color_space.h's ConvertColorSpace on a batch, bit
// for bit (its float32 operations in its order, no fused multiply-add, the same rounding).
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. The launcher only enqueues work and throws sluice::Error if the launch fails.
// Thread-safety: reentrant. One launch per batch, one descriptor per sample.
#pragma once
#include <cstdint>

#include "kernels/color/color_space.h"
#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

struct ColorSpaceDesc {
  const void* in;  // pixels x ColorSpaceChannels(from)
  void* out;       // pixels x ColorSpaceChannels(to)
  int64_t pixels;
};
// type: uint8 or float32 (input and output).
void LaunchColorSpace(const ColorSpaceDesc* descs, int num_samples, int64_t max_pixels, ColorSpace from, ColorSpace to,
                      DType type, void* stream);

}  // namespace sluice::kernels::cuda
