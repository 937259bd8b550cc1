// transpose on the GPU (transpose.cu): transpose.h on a batch.
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned), upload
// them, then launch: one launch per batch (per pass), one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- transpose (transpose.h) ----
inline constexpr int kMaxGpuTransposeDims = 16;
struct TransposeDesc {
  const void* in;
  void* out;
  int ndim;
  int64_t out_shape[kMaxGpuTransposeDims];
  int64_t in_stride[kMaxGpuTransposeDims];  // input stride (elements) of output dim i
};
void LaunchTranspose(const TransposeDesc* descs, int num_samples, int64_t max_elements, size_t elem_size, void* stream);

}  // namespace sluice::kernels::cuda
