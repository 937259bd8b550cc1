// Highway (dynamic dispatch) rows of the rank filters: min / max separably (column pass shared by
// two output rows, row pass direct or by doubling), the 3x3 median from sorted columns, and other
// medians by a compare-exchange network with the pixels of a vector in its lanes (the window's
// values of one lane are the window of one output element), OpenCV's approach for its small
// median windows.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/morphology/rank_rows_hwy.cc"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_AVX3_DL)
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <utility>

#include "core/dtype_list.h"
#include "kernels/morphology/rank_rows_hwy.h"
#include "kernels/morphology/selection_network.h"
#include "sluice/error.h"

HWY_BEFORE_NAMESPACE();
namespace sluice::kernels::morph_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The minimum or the maximum, chosen at compile time.
template <bool kMax, class V>
HWY_INLINE V Ext(V a, V b) {
  if constexpr (kMax) {
    return hn::Max(a, b);
  } else {
    return hn::Min(a, b);
  }
}
template <bool kMax, typename T>
HWY_INLINE T ExtS(T a, T b) {
  return kMax ? std::max(a, b) : std::min(a, b);
}

// fv(e) for whole vectors e, e + L <= n, the last one overlapping the one before (outputs never
// alias inputs, so recomputing an element gives the same value); fs(e) for each element of rows
// shorter than a vector.
template <class D, class FV, class FS>
HWY_INLINE void ForEachVector(D d, int64_t n, const FV& fv, const FS& fs) {
  const auto L = static_cast<int64_t>(hn::Lanes(d));
  if (n < L) {
    for (int64_t e = 0; e < n; ++e) fs(e);
    return;
  }
  int64_t e = 0;
  for (; e + 2 * L <= n; e += 2 * L) {
    fv(e);
    fv(e + L);
  }
  for (; e + L <= n; e += L) fv(e);
  if (e < n) fv(n - L);
}

// o0[e] = ext of rows[0 .. k)[e]; o1 (when given) = ext of rows[1 .. k][e].
template <bool kMax, typename T>
void ColumnExt(const T* const* rows, int k, int64_t n, T* o0, T* o1) {
  const hn::ScalableTag<T> d;
  if (o1 == nullptr) {
    ForEachVector(
        d, n,
        [&](int64_t e) {
          auto a = hn::LoadU(d, rows[0] + e);
          for (int j = 1; j < k; ++j) a = Ext<kMax>(a, hn::LoadU(d, rows[j] + e));
          hn::StoreU(a, d, o0 + e);
        },
        [&](int64_t e) {
          T a = rows[0][e];
          for (int j = 1; j < k; ++j) a = ExtS<kMax>(a, rows[j][e]);
          o0[e] = a;
        });
    return;
  }
  if (k == 1) {
    std::copy(rows[0], rows[0] + n, o0);
    std::copy(rows[1], rows[1] + n, o1);
    return;
  }
  ForEachVector(
      d, n,
      [&](int64_t e) {
        auto s = hn::LoadU(d, rows[1] + e);
        for (int j = 2; j < k; ++j) s = Ext<kMax>(s, hn::LoadU(d, rows[j] + e));
        hn::StoreU(Ext<kMax>(s, hn::LoadU(d, rows[0] + e)), d, o0 + e);
        hn::StoreU(Ext<kMax>(s, hn::LoadU(d, rows[k] + e)), d, o1 + e);
      },
      [&](int64_t e) {
        T s = rows[1][e];
        for (int j = 2; j < k; ++j) s = ExtS<kMax>(s, rows[j][e]);
        o0[e] = ExtS<kMax>(s, rows[0][e]);
        o1[e] = ExtS<kMax>(s, rows[k][e]);
      });
}

// out[e] = ext(a[e], b[e]), e < n.
template <bool kMax, typename T>
void Ext2(const T* a, const T* b, int64_t n, T* out) {
  const hn::ScalableTag<T> d;
  ForEachVector(
      d, n, [&](int64_t e) { hn::StoreU(Ext<kMax>(hn::LoadU(d, a + e), hn::LoadU(d, b + e)), d, out + e); },
      [&](int64_t e) { out[e] = ExtS<kMax>(a[e], b[e]); });
}

// Up to this window width the row pass reads the kw shifted rows directly (kw - 1 min/max per
// element); wider windows double (windows of 1, 2, 4, ... s <= kw, then two windows of s
// overlapping: floor(log2 kw) + 1 passes over the row).
inline constexpr int kDirectRowWindow = 5;

// out[e] = ext over j < k of in[e + j * step], e < n; s1, s2: scratch of n + (k - 1) * step.
template <bool kMax, typename T>
void RowExt(const T* in, int64_t step, int k, int64_t n, T* out, T* s1, T* s2) {
  const hn::ScalableTag<T> d;
  if (k <= kDirectRowWindow) {
    ForEachVector(
        d, n,
        [&](int64_t e) {
          auto a = hn::LoadU(d, in + e);
          for (int j = 1; j < k; ++j) a = Ext<kMax>(a, hn::LoadU(d, in + e + j * step));
          hn::StoreU(a, d, out + e);
        },
        [&](int64_t e) {
          T a = in[e];
          for (int j = 1; j < k; ++j) a = ExtS<kMax>(a, in[e + j * step]);
          out[e] = a;
        });
    return;
  }
  // m_s[e] = ext of in[e .. e + (s - 1) * step], valid for e < padded length - (s - 1) * step.
  const int64_t padded = n + int64_t(k - 1) * step;
  const T* cur = in;
  T* bufs[2] = {s1, s2};
  int b = 0;
  int64_t span = 1;
  for (; 2 * span <= k; span *= 2, b ^= 1) {
    Ext2<kMax>(cur, cur + span * step, padded - (2 * span - 1) * step, bufs[b]);
    cur = bufs[b];
  }
  Ext2<kMax>(cur, cur + (k - span) * step, n, out);
}

template <bool kMax, typename T>
void MorphRowsT(const T* const* rows, int kh, int kw, int ax, int64_t ci, int64_t width, const int64_t* xs, T fill,
                T* tmp, T* out0, T* out1) {
  const int64_t n = width * ci, wp = width + kw - 1, a = 64 / int64_t(sizeof(T)), len = (wp * ci + a - 1) / a * a + a;
  // The column results (stored at t + ax * ci) start on a 64-byte boundary: unaligned 64-byte
  // stores cost two.
  const int64_t skew = a - 1 - int64_t((reinterpret_cast<uintptr_t>(tmp + ax * ci) / sizeof(T) + a - 1) % uintptr_t(a));
  T* t[2] = {tmp + skew, tmp + skew + len};
  T* s1 = t[1] + len;
  T* s2 = s1 + len;
  ColumnExt<kMax>(rows, kh, n, t[0] + ax * ci, out1 ? t[1] + ax * ci : nullptr);
  T* outs[2] = {out0, out1};
  for (int r = 0; r < (out1 ? 2 : 1); ++r) {
    T* row = t[r];
    // The margins: padded columns [0, ax) and [ax + width, wp), from the column results.
    auto margin = [&](int64_t k0, int64_t k1) {
      for (int64_t k = k0; k < k1; ++k) {
        const int64_t sx = xs[k];
        for (int64_t c = 0; c < ci; ++c) row[k * ci + c] = sx < 0 ? fill : row[(ax + sx) * ci + c];
      }
    };
    margin(0, ax);
    margin(ax + width, wp);
    RowExt<kMax>(row, ci, kw, n, outs[r], s1, s2);
  }
}

// Sorted column triples for the 3x3 median: lo/mid/hi of (r0, r1, r2) and, with two rows, of
// (r1, r2, r3), r1 and r2 compared once.
template <bool kTwo, typename T>
void SortColumns(const T* const* rows, int64_t s0, int64_t len, T* const* arr) {
  const hn::ScalableTag<T> d;
  const T* r0 = rows[0] + s0;
  const T* r1 = rows[1] + s0;
  const T* r2 = rows[2] + s0;
  const T* r3 = rows[3] + s0;
  ForEachVector(
      d, len,
      [&](int64_t e) {
        const auto a = hn::LoadU(d, r1 + e), b = hn::LoadU(d, r2 + e);
        const auto mn = hn::Min(a, b), mx = hn::Max(a, b);
        const auto x = hn::LoadU(d, r0 + e);
        hn::StoreU(hn::Min(mn, x), d, arr[0] + e);
        hn::StoreU(hn::Max(mn, hn::Min(mx, x)), d, arr[1] + e);
        hn::StoreU(hn::Max(mx, x), d, arr[2] + e);
        if constexpr (kTwo) {
          const auto z = hn::LoadU(d, r3 + e);
          hn::StoreU(hn::Min(mn, z), d, arr[3] + e);
          hn::StoreU(hn::Max(mn, hn::Min(mx, z)), d, arr[4] + e);
          hn::StoreU(hn::Max(mx, z), d, arr[5] + e);
        }
      },
      [&](int64_t e) {
        const T a = r1[e], b = r2[e];
        const T mn = std::min(a, b), mx = std::max(a, b);
        const T x = r0[e];
        arr[0][e] = std::min(mn, x);
        arr[1][e] = std::max(mn, std::min(mx, x));
        arr[2][e] = std::max(mx, x);
        if constexpr (kTwo) {
          const T z = r3[e];
          arr[3][e] = std::min(mn, z);
          arr[4][e] = std::max(mn, std::min(mx, z));
          arr[5][e] = std::max(mx, z);
        }
      });
}

// out[e] = med3(max3 lo, med3 mid, min3 hi) over the columns at e, e + ci, e + 2 ci.
template <typename T>
void MedianOfSortedColumns(const T* lo, const T* mid, const T* hi, int64_t ci, int64_t n, T* out) {
  const hn::ScalableTag<T> d;
  auto med3 = [](auto a, auto b, auto c) { return hn::Max(hn::Min(a, b), hn::Min(hn::Max(a, b), c)); };
  auto med3s = [](T a, T b, T c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
  ForEachVector(
      d, n,
      [&](int64_t e) {
        const auto l = hn::Max(hn::Max(hn::LoadU(d, lo + e), hn::LoadU(d, lo + e + ci)), hn::LoadU(d, lo + e + 2 * ci));
        const auto h = hn::Min(hn::Min(hn::LoadU(d, hi + e), hn::LoadU(d, hi + e + ci)), hn::LoadU(d, hi + e + 2 * ci));
        const auto m = med3(hn::LoadU(d, mid + e), hn::LoadU(d, mid + e + ci), hn::LoadU(d, mid + e + 2 * ci));
        hn::StoreU(med3(l, m, h), d, out + e);
      },
      [&](int64_t e) {
        const T l = std::max(std::max(lo[e], lo[e + ci]), lo[e + 2 * ci]);
        const T h = std::min(std::min(hi[e], hi[e + ci]), hi[e + 2 * ci]);
        out[e] = med3s(l, med3s(mid[e], mid[e + ci], mid[e + 2 * ci]), h);
      });
}

template <typename T>
void Median3x3RowsT(const T* const* rows, int64_t ci, int64_t n, T* tmp, T* out0, T* out1) {
  // Chunks of whole pixels, so that a chunk ends inside the row or at its end; each sorted row
  // starts its stores on a 64-byte boundary (unaligned 64-byte stores cost two).
  const int64_t chunk = Median3x3Chunk(ci, sizeof(T)), a = Median3x3Align(sizeof(T));
  const int64_t lead = (ci + a - 1) / a * a, stride = Median3x3Stride(ci, sizeof(T));
  T* base = tmp + (a - int64_t(reinterpret_cast<uintptr_t>(tmp) / sizeof(T) % uintptr_t(a))) % a;
  T* slot[6];
  for (int i = 0; i < 6; ++i) slot[i] = base + i * stride + lead;
  const int narr = out1 ? 6 : 3;
  for (int64_t c0 = 0; c0 < n; c0 += chunk) {
    const int64_t c1 = std::min(n, c0 + chunk);
    // Element s of the source row is at s - (c0 - ci) of the sorted rows (arr); the columns one
    // pixel outside the row replicate the first / last pixel.
    const int64_t s_lo = std::max<int64_t>(c0 - ci, 0), s_hi = std::min(n, c1 + ci);
    T* arr[6];
    for (int i = 0; i < 6; ++i) arr[i] = slot[i] - (s_lo - (c0 - ci));
    if (out1) {
      SortColumns<true>(rows, s_lo, s_hi - s_lo, slot);
    } else {
      SortColumns<false>(rows, s_lo, s_hi - s_lo, slot);
    }
    for (int i = 0; i < narr; ++i) {
      if (c0 == 0) std::copy(arr[i] + ci, arr[i] + 2 * ci, arr[i]);
      if (c1 == n) std::copy(arr[i] + (n - c0), arr[i] + (n - c0) + ci, arr[i] + (n - c0) + ci);
    }
    MedianOfSortedColumns(arr[0], arr[1], arr[2], ci, c1 - c0, out0 + c0);
    if (out1) MedianOfSortedColumns(arr[3], arr[4], arr[5], ci, c1 - c0, out1 + c0);
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

void MorphRowsImpl(const void* const* rows, int kh, int kw, int ax, int64_t ci, int64_t width, const int64_t* xs,
                   const void* fill, bool is_max, DType type, void* tmp, void* out0, void* out1) {
  VisitDTypeIn<FilterDTypes>(type, "rank filters", [&](auto z) {
    using T = decltype(z);
    const auto r = reinterpret_cast<const T* const*>(rows);
    const T f = *static_cast<const T*>(fill);
    if (is_max) {
      MorphRowsT<true>(r, kh, kw, ax, ci, width, xs, f, static_cast<T*>(tmp), static_cast<T*>(out0), static_cast<T*>(out1));
    } else {
      MorphRowsT<false>(r, kh, kw, ax, ci, width, xs, f, static_cast<T*>(tmp), static_cast<T*>(out0), static_cast<T*>(out1));
    }
  });
}

void Median3x3RowsImpl(const void* const* rows, int64_t ci, int64_t n, DType type, void* tmp, void* out0, void* out1) {
  VisitDTypeIn<FilterDTypes>(type, "rank filters", [&](auto z) {
    using T = decltype(z);
    Median3x3RowsT<T>(reinterpret_cast<const T* const*>(rows), ci, n, static_cast<T*>(tmp), static_cast<T*>(out0),
                      static_cast<T*>(out1));
  });
}

void MedianOfRowsImpl(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs,
                      int npairs, int rank, DType type, void* out) {
  VisitDTypeIn<FilterDTypes>(type, "rank filters", [&](auto z) {
    using T = decltype(z);
    MedianT<T>(reinterpret_cast<const T* const*>(rows), kh, kw, step, n, pairs, npairs, rank, static_cast<T*>(out));
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace sluice::kernels::morph_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace sluice::kernels::morph_detail {
HWY_EXPORT(MorphRowsImpl);
HWY_EXPORT(Median3x3RowsImpl);
HWY_EXPORT(MedianOfRowsImpl);

int64_t MorphTmpElements(int64_t width, int kw, int64_t ci, DType type) {
  const int64_t a = 64 / int64_t(SizeOf(type));
  return 4 * ((width + kw - 1) * ci + 2 * a) + a;
}

void MorphRows(const void* const* rows, int kh, int kw, int ax, int64_t ci, int64_t width, const int64_t* xs,
               const void* fill, bool is_max, DType type, void* tmp, void* out0, void* out1) {
  HWY_DYNAMIC_DISPATCH(MorphRowsImpl)(rows, kh, kw, ax, ci, width, xs, fill, is_max, type, tmp, out0, out1);
}

int64_t Median3x3TmpElements(int64_t ci, DType type) {
  return 6 * Median3x3Stride(ci, SizeOf(type)) + Median3x3Align(SizeOf(type));
}

void Median3x3Rows(const void* const* rows, int64_t ci, int64_t n, DType type, void* tmp, void* out0, void* out1) {
  HWY_DYNAMIC_DISPATCH(Median3x3RowsImpl)(rows, ci, n, type, tmp, out0, out1);
}
void MedianOfRows(const void* const* rows, int kh, int kw, int64_t step, int64_t n, const uint8_t* pairs, int npairs,
                  int rank, DType type, void* out) {
  HWY_DYNAMIC_DISPATCH(MedianOfRowsImpl)(rows, kh, kw, step, n, pairs, npairs, rank, type, out);
}
}  // namespace sluice::kernels::morph_detail
#endif
