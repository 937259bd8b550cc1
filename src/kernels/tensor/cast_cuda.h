// cast on the GPU (cast.cu): cast.h's rules (saturate_cast.h) on a batch.
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. Launchers only enqueue work (no synchronization) and throw sluice::Error if a launch
// fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned), upload
// them, then launch: one launch per batch (per pass), one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

// ---- cast (cast.h: saturating, round-to-nearest-even, NaN -> 0) ----
struct CastDesc {
  const void* in;
  void* out;
  int64_t n;
};
void LaunchCast(const CastDesc* descs, int num_samples, int64_t max_elements, DType in_type, DType out_type,
                void* stream);

}  // namespace sluice::kernels::cuda
