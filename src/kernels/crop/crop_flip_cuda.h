// crop and flip on the GPU (crop_flip.cu): the CPU kernels' windows and fills (crop.h, flip.h)
// on a batch, any element size.
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned), upload
// them, then launch: one launch per batch (per pass), one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- crop and flip (crop.h, flip.h), any element size ----
// The input is `outer` images of in_h x in_w pixels of `inner` elements (HWC: outer 1, inner C;
// CHW: outer C, inner 1; FHWC: outer F, inner C). Output pixel (y, x) of each image is input
// pixel (y0 + y', x0 + x') with y' = vflip ? out_h-1-y : y (x' likewise); pixels outside the
// input take `fill` (inner elements; zero when has_fill is 0).
inline constexpr int kMaxFillBytes = 64;
struct CropFlipDesc {
  const void* in;
  void* out;
  int64_t outer, in_h, in_w, inner;
  int64_t x0, y0, out_h, out_w;
  int hflip, vflip, has_fill;
  alignas(8) unsigned char fill[kMaxFillBytes];
};
// elem_size: 1, 2, 4 or 8.
void LaunchCropFlip(const CropFlipDesc* descs, int num_samples, int64_t max_out_elements, size_t elem_size,
                    void* stream);

}  // namespace sluice::kernels::cuda
