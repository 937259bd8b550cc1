// preemphasis_filter on the GPU (preemphasis.cu): preemphasis.h's formula, types and rounding on a
// batch, bit for bit (no fused multiply-add).
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor pointers are device
// pointers. The launcher only enqueues work (no synchronization) and throws sluice::Error if the
// launch fails. Thread-safety: reentrant. Callers build the descriptors on the host (pinned),
// upload them, then launch: one launch per batch, one descriptor per sample.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

struct PreemphasisDesc {
  const void* in;
  void* out;
  int64_t n;             // elements of the signal
  int64_t border_index;  // PreemphasisBorderIndex: the element out[0] subtracts coeff times; -1: none
  float coeff;
};
void LaunchPreemphasis(const PreemphasisDesc* descs, int num_samples, int64_t max_elements, DType in_type,
                       DType out_type, void* stream);

}  // namespace sluice::kernels::cuda
