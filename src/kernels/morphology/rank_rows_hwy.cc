// Highway (dynamic dispatch) rows of the rank filters: min / max over shifted rows, and the median
// by a compare-exchange network with the pixels of a vector in its lanes (the window's values of
// one lane are the window of one output element), OpenCV's approach for its small median windows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/morphology/rank_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <utility>

#include "kernels/morphology/rank_rows_hwy.h"
#include "kernels/morphology/selection_network.h"
#include "sluice/error.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::morph_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
void ExtremumT(const T* const* src, int k, int64_t n, bool is_max, T* out) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  int64_t e = 0;
  if (is_max) {
    for (; e + 2 * N <= n; e += 2 * N) {
      auto a = hn::LoadU(d, src[0] + e), b = hn::LoadU(d, src[0] + e + N);
      for (int j = 1; j < k; ++j) {
        a = hn::Max(a, hn::LoadU(d, src[j] + e));
        b = hn::Max(b, hn::LoadU(d, src[j] + e + N));
      }
      hn::StoreU(a, d, out + e);
      hn::StoreU(b, d, out + e + N);
    }
  } else {
    for (; e + 2 * N <= n; e += 2 * N) {
      auto a = hn::LoadU(d, src[0] + e), b = hn::LoadU(d, src[0] + e + N);
      for (int j = 1; j < k; ++j) {
        a = hn::Min(a, hn::LoadU(d, src[j] + e));
        b = hn::Min(b, hn::LoadU(d, src[j] + e + N));
      }
      hn::StoreU(a, d, out + e);
      hn::StoreU(b, d, out + e + N);
    }
  }
  // The rest: whole vectors, the last one overlapping the previous (out never aliases src, so
  // recomputing an element gives the same value), scalar only for rows shorter than a vector.
  for (; e < n && n >= N; e += N) {
    const int64_t at = e + N <= n ? e : n - N;
    auto a = hn::LoadU(d, src[0] + at);
    for (int j = 1; j < k; ++j) a = is_max ? hn::Max(a, hn::LoadU(d, src[j] + at)) : hn::Min(a, hn::LoadU(d, src[j] + at));
    hn::StoreU(a, d, out + at);
  }
  for (; e < n; ++e) {
    T v = src[0][e];
    for (int j = 1; j < k; ++j) v = is_max ? std::max(v, src[j][e]) : std::min(v, src[j][e]);
    out[e] = v;
  }
}

// The network of a window of N values, fixed at compile time so that the vectors stay in registers.
template <int N>
inline constexpr morph_detail::SelectionNet kNet = morph_detail::MakeSelectionNetwork(N, N / 2);

template <int N, class V, size_t... I>
HWY_INLINE void ApplyNet(V* v, std::index_sequence<I...>) {
  ((void)[&] {
    constexpr int a = kNet<N>.a[I], b = kNet<N>.b[I];
    constexpr bool lo_live = kNet<N>.min_live[I], hi_live = kNet<N>.max_live[I];
    if constexpr (lo_live && hi_live) {
      const V lo = hn::Min(v[a], v[b]);
      v[b] = hn::Max(v[a], v[b]);
      v[a] = lo;
    } else if constexpr (lo_live) {
      v[a] = hn::Min(v[a], v[b]);
    } else {
      v[b] = hn::Max(v[a], v[b]);
    }
  }(), ...);
}

// MedianT for a window of exactly N = kh * kw values: the network unrolled.
template <int N, typename T>
int64_t MedianFixed(const T* const* rows, int kh, int kw, int64_t step, int64_t n, T* out) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  int64_t e = 0;
  for (; e + L <= n; e += L) {
    V v[N];
    for (int i = 0; i < kh; ++i)
      for (int j = 0; j < kw; ++j) v[i * kw + j] = hn::LoadU(d, rows[i] + e + j * step);
    ApplyNet<N>(v, std::make_index_sequence<size_t(kNet<N>.size)>());
    hn::StoreU(v[N / 2], d, out + e);
  }
  return e;
}

template <typename T>
void MedianT(const T* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs, int npairs,
             int rank, T* out) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  const int count = kh * kw;
  int64_t e = 0;
  if (count == 9) e = MedianFixed<9>(rows, kh, kw, step, n, out);
  if (count == 25) e = MedianFixed<25>(rows, kh, kw, step, n, out);
  hn::Vec<decltype(d)> v[kMaxNetwork];
  if (count != 9 && count != 25)
  for (; e + N <= n; e += N) {
    for (int i = 0; i < kh; ++i)
      for (int j = 0; j < kw; ++j) v[i * kw + j] = hn::LoadU(d, rows[i] + e + j * step);
    for (int p = 0; p < npairs; ++p) {
      const int a = pairs[2 * p], b = pairs[2 * p + 1];
      const auto lo = hn::Min(v[a], v[b]);
      v[b] = hn::Max(v[a], v[b]);
      v[a] = lo;
    }
    hn::StoreU(v[rank], d, out + e);
  }
  T w[kMaxNetwork];
  for (; e < n; ++e) {
    for (int i = 0; i < kh; ++i)
      for (int j = 0; j < kw; ++j) w[i * kw + j] = rows[i][e + j * step];
    std::nth_element(w, w + rank, w + count);
    out[e] = w[rank];
  }
}

template <typename Fn>
void Visit(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8: fn(uint8_t{}); return;
    case DType::kInt16: fn(int16_t{}); return;
    case DType::kUInt16: fn(uint16_t{}); return;
    case DType::kFloat32: fn(float{}); return;
    default: throw Error("rank filters do not support " + std::string(ToString(t)));
  }
}

void ExtremumOfRowsImpl(const void* const* src, int k, int64_t n, bool is_max, DType type, void* out) {
  Visit(type, [&](auto z) {
    using T = decltype(z);
    ExtremumT<T>(reinterpret_cast<const T* const*>(src), k, n, is_max, static_cast<T*>(out));
  });
}

void MedianOfRowsImpl(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs,
                      int npairs, int rank, DType type, void* out) {
  Visit(type, [&](auto z) {
    using T = decltype(z);
    MedianT<T>(reinterpret_cast<const T* const*>(rows), kh, kw, step, n, pairs, npairs, rank, static_cast<T*>(out));
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::morph_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::morph_detail {
HWY_EXPORT(ExtremumOfRowsImpl);
HWY_EXPORT(MedianOfRowsImpl);
void ExtremumOfRows(const void* const* src, int k, int64_t n, bool is_max, DType type, void* out) {
  HWY_DYNAMIC_DISPATCH(ExtremumOfRowsImpl)(src, k, n, is_max, type, out);
}
void MedianOfRows(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs, int npairs,
                  int rank, DType type, void* out) {
  HWY_DYNAMIC_DISPATCH(MedianOfRowsImpl)(rows, kh, kw, step, n, pairs, npairs, rank, type, out);
}
}  // namespace sluice::kernels::morph_detail
#endif
