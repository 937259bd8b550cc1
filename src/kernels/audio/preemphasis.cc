#include "kernels/audio/preemphasis.h"

#include <type_traits>

#include "kernels/tensor/cast.h"

namespace sluice::kernels {
namespace {

template <typename In, typename Out>
void FilterTyped(const In* in, Out* out, int64_t n, float coeff, PreemphasisBorder border) {
  // The arithmetic type of `in - coeff * in` in C++ (float16 is widened to float first).
  using Acc = std::conditional_t<std::is_same_v<In, double>, double, float>;
  if (coeff == 0.0f) {
    for (int64_t t = 0; t < n; ++t) out[t] = ConvertSaturate<Out>(in[t]);
    return;
  }
  const Acc c = coeff;
  const int64_t b = PreemphasisBorderIndex(border, n);
  out[0] = b < 0 ? ConvertSaturate<Out>(in[0]) : ConvertSaturate<Out>(Acc(in[0]) - c * Acc(in[b]));
  for (int64_t t = 1; t < n; ++t) out[t] = ConvertSaturate<Out>(Acc(in[t]) - c * Acc(in[t - 1]));
}

}  // namespace

void PreemphasisFilter(const void* in, DType in_type, void* out, DType out_type, int64_t n, float coeff,
                       PreemphasisBorder border) {
  if (n <= 0) return;
  VisitDType(in_type, [&](auto in_tag) {
    using In = decltype(in_tag);
    VisitDType(out_type, [&](auto out_tag) {
      using Out = decltype(out_tag);
      FilterTyped(static_cast<const In*>(in), static_cast<Out*>(out), n, coeff, border);
    });
  });
}

}  // namespace sluice::kernels
