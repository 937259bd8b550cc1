// transpose's kernel body and launcher (transpose_cuda.h's descriptors), shared by transpose.cu
// and the host grid runner: one thread per output element, any element size.
#pragma once
#include <cstdint>

#include "kernels/grid/host_device.h"
#include "kernels/tensor/transpose_cuda.h"

namespace sluice::kernels::cuda {

template <typename T>
struct TransposeBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const TransposeDesc* descs) {
    const TransposeDesc& d = descs[g.block_idx.y];
    int64_t total = 1;
    for (int k = 0; k < d.ndim; ++k) total *= d.out_shape[k];
    const auto* in = static_cast<const T*>(d.in);
    auto* out = static_cast<T*>(d.out);
    for (int64_t i = g.GlobalX(); i < total; i += g.StrideX()) {
      int64_t rem = i, src = 0;
      for (int k = d.ndim - 1; k >= 0; --k) {
        const int64_t e = d.out_shape[k];
        const int64_t q = rem / e;
        src += (rem - q * e) * d.in_stride[k];
        rem = q;
      }
      out[i] = in[src];
    }
  }
};

template <typename Exec>
void RunTranspose(Exec& exec, const TransposeDesc* descs, int n, int64_t max_el, size_t elem_size) {
  if (n <= 0 || max_el <= 0) return;
  const grid::Dim3 dims = grid::BatchGrid(max_el, n, grid::kDefaultBlock);
  constexpr int b = grid::kDefaultBlock;
  switch (elem_size) {
    case 1: return exec.template Run<TransposeBody<uint8_t>>(dims, b, descs);
    case 2: return exec.template Run<TransposeBody<uint16_t>>(dims, b, descs);
    case 4: return exec.template Run<TransposeBody<uint32_t>>(dims, b, descs);
    case 8: return exec.template Run<TransposeBody<uint64_t>>(dims, b, descs);
    default: throw Error("transpose (gpu): unsupported element size " + std::to_string(elem_size));
  }
}

}  // namespace sluice::kernels::cuda
