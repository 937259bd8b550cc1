// crop_mirror_normalize on the GPU (crop_mirror_normalize.cu): the CPU kernel's math
// (crop_mirror_normalize.h) on a batch.
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned), upload
// them, then launch: one launch per batch (per pass), one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- crop_mirror_normalize (crop_mirror_normalize.h) ----
// out[c] = convert(in[c] * a[c] + b[c]), fill[c] (already an output value) outside the image, 0 in
// the padded channel. `fma` picks a fused multiply-add (the CPU kernel's SIMD rows: uint8 RGB
// input without channel padding) or a rounded product then a rounded sum (its scalar rows), so
// that float results match the CPU bit for bit wherever the CPU's choice is known.
struct CmnSampleDesc {
  const void* in;  // HWC, in_type
  void* out;       // out_h x out_w x out_channels (HWC) or out_channels x out_h x out_w (CHW)
  int in_h, in_w, channels;
  int crop_x, crop_y, out_w, out_h;
  int out_channels;  // channels, or channels + 1 with pad_output
  int mirror;
  int fma;
  float a[4], b[4], fill[4];
};
// in_type: uint8 or float32; out_type: float32, float16, uint8, int8.
void LaunchCropMirrorNormalize(const CmnSampleDesc* descs, int num_samples, int64_t max_out_pixels, DType in_type,
                               DType out_type, bool chw, void* stream);

}  // namespace sluice::kernels::cuda
