// Batched preemphasis filter (see preemphasis_cuda.h): one thread per output element. The product
// and the difference are rounded separately (__fmul_rn/__fsub_rn), as the CPU kernel computes
// them, so that nvcc cannot contract them into a fused multiply-add.
#include <type_traits>

#include "kernels/audio/preemphasis_cuda.h"
#include "kernels/cuda_common.cuh"

namespace sluice::kernels::cuda {
namespace {

constexpr int kBlock = 256;

__device__ __forceinline__ float Preemph(float x, float c, float prev) { return __fsub_rn(x, __fmul_rn(c, prev)); }
__device__ __forceinline__ double Preemph(double x, double c, double prev) { return __dsub_rn(x, __dmul_rn(c, prev)); }

template <typename In, typename Out>
__global__ void PreemphasisKernel(const PreemphasisDesc* __restrict__ descs) {
  using Acc = std::conditional_t<std::is_same_v<In, double>, double, float>;
  const PreemphasisDesc& d = descs[blockIdx.y];
  const auto* in = static_cast<const In*>(d.in);
  auto* out = static_cast<Out*>(d.out);
  const Acc c = d.coeff;
  for (int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < d.n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t prev = t > 0 ? t - 1 : d.border_index;
    if (d.coeff == 0.0f || prev < 0) {
      out[t] = ConvertSat<Out>(in[t]);
    } else {
      out[t] = ConvertSat<Out>(Preemph(ConvertSat<Acc>(in[t]), c, ConvertSat<Acc>(in[prev])));
    }
  }
}

}  // namespace

void LaunchPreemphasis(const PreemphasisDesc* descs, int n, int64_t max_el, DType in_type, DType out_type,
                       void* stream) {
  if (n <= 0 || max_el <= 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const dim3 grid = BatchGrid(max_el, n, kBlock);
  VisitDeviceType(in_type, "preemphasis_filter (gpu)", [&](auto in_tag) {
    VisitDeviceType(out_type, "preemphasis_filter (gpu)", [&](auto out_tag) {
      using In = decltype(in_tag);
      using Out = decltype(out_tag);
      if constexpr (!std::is_same_v<In, bool> && !std::is_same_v<Out, bool>)
        PreemphasisKernel<In, Out><<<grid, kBlock, 0, s>>>(descs);
      else
        throw Error("preemphasis_filter (gpu): bool is not a signal type");
    });
  });
  CheckLaunch("preemphasis_filter");
}

}  // namespace sluice::kernels::cuda
