// preemphasis_filter's kernel body and launcher (preemphasis_cuda.h's descriptors), shared by
// preemphasis.cu and the host grid runner: one thread per output element. The product and the
// difference are rounded separately (grid::MulRn / SubRn), as the CPU kernel computes them.
#pragma once
#include <type_traits>

#include "kernels/audio/preemphasis_cuda.h"
#include "kernels/grid/host_device.h"

namespace sluice::kernels::cuda {

template <typename In, typename Out>
struct PreemphasisBody {
  static SLUICE_HD void Run(const grid::GridPos& g, const PreemphasisDesc* descs) {
    using Acc = std::conditional_t<std::is_same_v<In, double>, double, float>;
    const PreemphasisDesc& d = descs[g.block_idx.y];
    const auto* in = static_cast<const In*>(d.in);
    auto* out = static_cast<Out*>(d.out);
    const Acc c = d.coeff;
    for (int64_t t = g.GlobalX(); t < d.n; t += g.StrideX()) {
      const int64_t prev = t > 0 ? t - 1 : d.border_index;
      if (d.coeff == 0.0f || prev < 0) {
        out[t] = grid::ConvertSat<Out>(in[t]);
      } else {
        const Acc x = grid::ConvertSat<Acc>(in[t]), p = grid::ConvertSat<Acc>(in[prev]);
        out[t] = grid::ConvertSat<Out>(grid::SubRn(x, grid::MulRn(c, p)));
      }
    }
  }
};

template <typename Exec>
void RunPreemphasis(Exec& exec, const PreemphasisDesc* descs, int n, int64_t max_el, DType in_type, DType out_type) {
  if (n <= 0 || max_el <= 0) return;
  const grid::Dim3 dims = grid::BatchGrid(max_el, n, grid::kDefaultBlock);
  grid::VisitDeviceType(in_type, "preemphasis_filter (gpu)", [&](auto in_tag) {
    using In = std::remove_reference_t<decltype(in_tag)>;  // GCC: a nested generic lambda sees a reference
    grid::VisitDeviceType(out_type, "preemphasis_filter (gpu)", [&](auto out_tag) {
      using Out = decltype(out_tag);
      if constexpr (!std::is_same_v<In, bool> && !std::is_same_v<Out, bool>)
        exec.template Run<PreemphasisBody<In, Out>>(dims, grid::kDefaultBlock, descs);
      else
        throw Error("preemphasis_filter (gpu): bool is not a signal type");
    });
  });
}

}  // namespace sluice::kernels::cuda
