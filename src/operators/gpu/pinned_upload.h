// Host-to-device uploads of whole batches through pinned memory, for the mixed-stage operators
// (tensor/copy_mixed.cc, decode/mixed_image_decoder.cc).
//
// Internal to src/operators/gpu (only compiled with SLUICE_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <vector>

#include "core/cuda/cuda_check.h"
#include "core/tensor_list.h"

namespace sluice::gpu {

// Copies every sample of `src` (host, pinned or not) to `dst` (device, already sized to the same
// shapes): one copy for the whole batch when both are contiguous with the same layout.
inline void CopyBatch(const TensorList& src, TensorList& dst, cudaStream_t stream) {
  const int n = src.num_samples();
  if (n == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    const auto* s0 = static_cast<const char*>(src.raw_sample(0));
    const auto* d0 = static_cast<const char*>(dst.raw_sample(0));
    bool same_offsets = true;
    for (int i = 1; i < n && same_offsets; ++i)
      same_offsets = static_cast<const char*>(src.raw_sample(i)) - s0 == static_cast<const char*>(dst.raw_sample(i)) - d0;
    if (same_offsets) {
      const size_t bytes = static_cast<size_t>(static_cast<const char*>(src.raw_sample(n - 1)) - s0) + src.sample_bytes(n - 1);
      if (bytes) SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(0), s0, bytes, cudaMemcpyDefault, stream));
      return;
    }
  }
  for (int i = 0; i < n; ++i) {
    const size_t bytes = src.sample_bytes(i);
    if (bytes)
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(i), src.raw_sample(i), bytes, cudaMemcpyDefault, stream));
  }
}

// Sizes a contiguous pinned list for `shapes`, growing its buffer with 25% headroom: pinning
// memory is slow (cudaHostAlloc) and, with random crops, batch sizes keep setting small records.
inline void ResizePinned(TensorList& tl, const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg) {
  size_t total = 0;
  for (const auto& s : shapes) total += (static_cast<size_t>(s.num_elements()) * SizeOf(dtype) + 63) / 64 * 64;
  const int n = static_cast<int>(shapes.size());
  if (n > 0 && total > tl.reserved_bytes()) tl.Reserve(n, (total + total / 4) / static_cast<size_t>(n) + 64, cfg, true);
  tl.Resize(shapes, dtype, cfg, true);
}

}  // namespace sluice::gpu
