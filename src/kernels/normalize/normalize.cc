#include "kernels/normalize/normalize.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/tensor/byte_table.h"
#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Calls f(elem_offset, param_offset, run_length, param_stride) for every run of the innermost axis.
template <typename F>
void Walk(const NormalizeGeometry& g, F&& f) {
  const int nd = static_cast<int>(g.dims.size());
  if (nd == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0});
    return;
  }
  for (int64_t d : g.dims)
    if (d == 0) return;
  const std::vector<int64_t> pdims = g.ParamShape();
  std::vector<int64_t> pstride(static_cast<size_t>(nd), 0);
  int64_t s = 1;
  for (int d = nd - 1; d >= 0; --d) {
    pstride[static_cast<size_t>(d)] = (g.reduced >> d & 1u) ? 0 : s;
    s *= pdims[static_cast<size_t>(d)];
  }
  const int64_t inner = g.dims.back(), inner_pstride = pstride.back();
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t elem = 0, param = 0;
  for (;;) {
    f(elem, param, inner, inner_pstride);
    elem += inner;
    int d = nd - 2;
    for (; d >= 0; --d) {
      auto& i = idx[static_cast<size_t>(d)];
      ++i;
      param += pstride[static_cast<size_t>(d)];
      if (i < g.dims[static_cast<size_t>(d)]) break;
      param -= i * pstride[static_cast<size_t>(d)];
      i = 0;
    }
    if (d < 0) return;
  }
}

template <typename T>
inline constexpr bool kInput = std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint16_t> ||
                               std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> || std::is_same_v<T, float>;

template <typename Fn>
void VisitInput(DType t, Fn&& fn) {
  if (!NormalizeSupportsInput(t)) throw Error("normalize does not take " + std::string(ToString(t)) + " inputs");
  VisitDType(t, [&](auto tag) {
    if constexpr (kInput<decltype(tag)>) fn(tag);
  });
}

}  // namespace

std::vector<int64_t> NormalizeGeometry::ParamShape() const {
  std::vector<int64_t> p = dims;
  for (size_t d = 0; d < p.size(); ++d)
    if (reduced >> d & 1u) p[d] = 1;
  return p;
}

int64_t NormalizeGeometry::ParamVolume() const {
  int64_t v = 1;
  for (int64_t d : ParamShape()) v *= d;
  return v;
}

int64_t NormalizeGeometry::GroupSize() const {
  int64_t v = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced >> d & 1u) v *= dims[d];
  return v;
}

bool NormalizeSupportsInput(DType t) {
  return t == DType::kUInt8 || t == DType::kInt8 || t == DType::kUInt16 || t == DType::kInt16 ||
         t == DType::kInt32 || t == DType::kFloat32;
}

bool NormalizeSupportsOutput(DType t) { return NormalizeSupportsInput(t); }

float NormalizeMultiplier(double var, double epsilon, double scale) {
  const double v = var + epsilon;
  return v > 0 ? static_cast<float>(scale / std::sqrt(v)) : 0.0f;
}

void AccumulateSum(const void* in, DType type, const NormalizeGeometry& g, double* sums) {
  VisitInput(type, [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    Walk(g, [&](int64_t e, int64_t p, int64_t n, int64_t ps) {
      if (ps == 0) {
        double s = 0;
        for (int64_t k = 0; k < n; ++k) s += static_cast<double>(src[e + k]);
        sums[p] += s;
      } else {
        for (int64_t k = 0; k < n; ++k) sums[p + k] += static_cast<double>(src[e + k]);
      }
    });
  });
}

void AccumulateSquaredDeviation(const void* in, DType type, const NormalizeGeometry& g, const double* mean,
                                double* acc) {
  VisitInput(type, [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    Walk(g, [&](int64_t e, int64_t p, int64_t n, int64_t ps) {
      if (ps == 0) {
        const double m = mean[p];
        double s = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double d = static_cast<double>(src[e + k]) - m;
          s += d * d;
        }
        acc[p] += s;
      } else {
        for (int64_t k = 0; k < n; ++k) {
          const double d = static_cast<double>(src[e + k]) - mean[p + k];
          acc[p + k] += d * d;
        }
      }
    });
  });
}

void NormalizeApply(const void* in, DType in_type, void* out, DType out_type, const NormalizeGeometry& g,
                    const float* mean, const float* mul, float shift) {
  if (!NormalizeSupportsOutput(out_type))
    throw Error("normalize does not output " + std::string(ToString(out_type)));
  VisitInput(in_type, [&](auto in_tag) {
    using In = decltype(in_tag);
    VisitDType(out_type, [&](auto out_tag) {
      using Out = decltype(out_tag);
      if constexpr (kInput<Out>) {
        const In* src = static_cast<const In*>(in);
        Out* dst = static_cast<Out*>(out);
        // A byte input with few parameter groups (an image normalized per channel): each group maps
        // the 256 input values through a table of the same computation, then every element is a
        // lookup. Identical results; the tables live on the stack.
        constexpr int64_t kMaxTableGroups = 16;
        int64_t volume = 1;
        for (int64_t d : g.dims) volume *= d;
        const int64_t groups = g.ParamVolume();
        if constexpr (sizeof(In) == 1) {
          if (groups <= kMaxTableGroups && volume >= groups * 1024) {
            Out table[kMaxTableGroups * 256];
            for (int64_t q = 0; q < groups; ++q)
              for (int v = 0; v < 256; ++v) {
                const float x = (static_cast<float>(static_cast<In>(static_cast<uint8_t>(v))) - mean[q]) * mul[q] + shift;
                if constexpr (std::is_same_v<Out, float>) table[q * 256 + v] = x;
                else table[q * 256 + v] = ConvertSaturate<Out>(x);
              }
            // Byte outputs with parameters along the innermost axis only (an HWC image per channel)
            // or none (the whole sample): one table per interleaved channel, SIMD lookups.
            const int nd = static_cast<int>(g.dims.size());
            const uint32_t outer = nd > 1 ? (uint32_t{1} << (nd - 1)) - 1 : 0;
            const int64_t inner = nd > 0 ? g.dims.back() : 1;
            if constexpr (sizeof(Out) == 1) {
              if (nd > 0 && (g.reduced & outer) == outer && (groups == 1 || groups == inner) && groups <= 4) {
                MapBytesInterleaved(reinterpret_cast<const uint8_t*>(src), reinterpret_cast<const uint8_t*>(table),
                                    static_cast<int>(groups), reinterpret_cast<uint8_t*>(dst), static_cast<size_t>(volume));
                return;
              }
            }
            Walk(g, [&](int64_t e, int64_t p, int64_t n, int64_t ps) {
              for (int64_t k = 0; k < n; ++k)
                dst[e + k] = table[(p + k * ps) * 256 + static_cast<uint8_t>(src[e + k])];
            });
            return;
          }
        }
        Walk(g, [&](int64_t e, int64_t p, int64_t n, int64_t ps) {
          for (int64_t k = 0; k < n; ++k) {
            const int64_t q = p + k * ps;
            const float v = (static_cast<float>(src[e + k]) - mean[q]) * mul[q] + shift;
            if constexpr (std::is_same_v<Out, float>) dst[e + k] = v;
            else dst[e + k] = ConvertSaturate<Out>(v);
          }
        });
      }
    });
  });
}

}  // namespace sluice::kernels
