// cast's kernel body and launcher (cast_cuda.h's descriptors), shared by cast.cu and the host
// grid runner (kernels/grid/host_grid.h): one thread per element, CastSat (saturate_cast.h's rules).
#pragma once
#include <type_traits>

#include "kernels/grid/host_device.h"
#include "kernels/tensor/cast_cuda.h"

namespace sluice::kernels::cuda {

template <typename To, typename From>
struct CastBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const CastDesc* descs) {
    const CastDesc& d = descs[g.block_idx.y];
    const auto* in = static_cast<const From*>(d.in);
    auto* out = static_cast<To*>(d.out);
    for (int64_t i = g.GlobalX(); i < d.n; i += g.StrideX()) out[i] = grid::CastSat<To>(in[i]);
  }
};

// One launch for the batch, 12 x 12 type pairs.
template <typename Exec>
void RunCast(Exec& exec, const CastDesc* descs, int n, int64_t max_el, DType in_type, DType out_type) {
  if (n <= 0 || max_el <= 0) return;
  const grid::Dim3 dims = grid::BatchGrid(max_el, n, grid::kDefaultBlock);
  grid::VisitDeviceType(in_type, "cast (gpu)", [&](auto in_tag) {
    using From = std::remove_reference_t<decltype(in_tag)>;  // GCC: a nested generic lambda sees a reference
    grid::VisitDeviceType(out_type, "cast (gpu)", [&](auto out_tag) {
      exec.template Run<CastBody<decltype(out_tag), From>>(dims, grid::kDefaultBlock, descs);
    });
  });
}

}  // namespace sluice::kernels::cuda
