#include "kernels/morphology/rank_filter.h"

#include <algorithm>
#include <limits>

#include "core/dtype_list.h"
#include "kernels/morphology/rank_rows_hwy.h"
#include "kernels/morphology/selection_network.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Min / max: two output rows per call (their column passes share kh - 1 rows), source rows read in
// place; a row outside the image in constant mode is a row of the fill value.
template <typename T>
void MorphPlane(const T* src, T* dst, const ImageGeom& g, int64_t ci, const RankFilterParams& p,
                const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, T fill) {
  const int64_t n = g.width * ci;
  const DType type = TypeToDType<T>::value;
  std::vector<T> tmp(static_cast<size_t>(morph_detail::MorphTmpElements(g.width, p.kw, ci, type)));
  std::vector<T> fill_row;
  std::vector<const void*> rows(static_cast<size_t>(p.kh + 1));
  for (int64_t y = 0; y < g.height; y += 2) {
    const bool two = y + 1 < g.height;
    for (int i = 0; i < p.kh + (two ? 1 : 0); ++i) {
      const int64_t sy = ys[size_t(y + i)];
      if (sy < 0 && fill_row.empty()) fill_row.assign(static_cast<size_t>(n), fill);
      rows[size_t(i)] = sy < 0 ? static_cast<const void*>(fill_row.data()) : src + sy * g.stride_y;
    }
    morph_detail::MorphRows(rows.data(), p.kh, p.kw, p.anchor_x, ci, g.width, xs.data(), &fill, p.op == RankOp::kMax,
                            type, tmp.data(), dst + y * g.stride_y, two ? dst + (y + 1) * g.stride_y : nullptr);
  }
}

// The 3x3 median (replicated border): two output rows per call, source rows read in place.
template <typename T>
void Median3x3Plane(const T* src, T* dst, const ImageGeom& g, int64_t ci, const std::vector<int64_t>& ys) {
  const DType type = TypeToDType<T>::value;
  std::vector<T> tmp(static_cast<size_t>(morph_detail::Median3x3TmpElements(ci, type)));
  const void* rows[4];
  for (int64_t y = 0; y < g.height; y += 2) {
    const bool two = y + 1 < g.height;
    for (int i = 0; i < (two ? 4 : 3); ++i) rows[i] = src + ys[size_t(y + i)] * g.stride_y;
    if (!two) rows[3] = rows[2];
    morph_detail::Median3x3Rows(rows, ci, g.width * ci, type, tmp.data(), dst + y * g.stride_y,
                                two ? dst + (y + 1) * g.stride_y : nullptr);
  }
}

// Other medians: a ring of kh rows padded by the window's margins; windows of up to kMaxNetwork
// values by a compare-exchange network, larger ones by nth_element.
template <typename T>
void MedianPlane(const T* src, T* dst, const ImageGeom& g, int64_t ci, const RankFilterParams& p,
                 const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
                 const std::vector<std::pair<uint8_t, uint8_t>>& net) {
  const int kw = p.kw, kh = p.kh;
  const int64_t n = g.width * ci, wp = g.width + kw - 1, count = int64_t(kw) * kh, slot_len = wp * ci;
  const DType type = TypeToDType<T>::value;
  std::vector<T> ring(static_cast<size_t>(kh * slot_len));
  std::vector<const void*> srcs(static_cast<size_t>(kh));
  std::vector<uint8_t> pairs;
  for (auto [a, b] : net) pairs.insert(pairs.end(), {a, b});
  std::vector<T> window(static_cast<size_t>(count));
  // The padded row: the interior is one copy (contiguous pixels), only the window's margins go
  // through the border table (replicated: every index is inside the image).
  auto pad_row = [&](int64_t r, T* row) {
    const T* s = src + ys[size_t(r)] * g.stride_y;
    auto by_table = [&](int64_t k) {
      for (int64_t c = 0; c < ci; ++c) row[k * ci + c] = s[xs[size_t(k)] * ci + c];
    };
    for (int64_t k = 0; k < p.anchor_x; ++k) by_table(k);
    std::copy(s, s + n, row + p.anchor_x * ci);
    for (int64_t k = p.anchor_x + g.width; k < wp; ++k) by_table(k);
  };
  for (int64_t r = 0; r + 1 < kh; ++r) pad_row(r, ring.data() + (r % kh) * slot_len);
  for (int64_t y = 0; y < g.height; ++y) {
    pad_row(y + kh - 1, ring.data() + ((y + kh - 1) % kh) * slot_len);
    T* o = dst + y * g.stride_y;
    for (int i = 0; i < kh; ++i) srcs[size_t(i)] = ring.data() + ((y + i) % kh) * slot_len;
    if (count <= morph_detail::kMaxNetwork) {
      morph_detail::MedianOfRows(srcs.data(), kh, kw, ci, n, pairs.data(), int(net.size()), int(count / 2), type, o);
    } else {
      for (int64_t e = 0; e < n; ++e) {
        for (int i = 0; i < kh; ++i)
          for (int j = 0; j < kw; ++j)
            window[size_t(i * kw + j)] = static_cast<const T*>(srcs[size_t(i)])[e + j * ci];
        std::nth_element(window.begin(), window.begin() + count / 2, window.end());
        o[e] = window[size_t(count / 2)];
      }
    }
  }
}

// The filter from `in` to `out` (same geometry, not overlapping). Pixels are ci elements apart
// along a row: interleaved channels (HWC: ci = channels, one plane) or planes of unit x stride.
template <typename T>
void RankPass(const T* in, T* out, const ImageGeom& g, const RankFilterParams& p,
              const std::vector<std::pair<uint8_t, uint8_t>>& net) {
  const bool interleaved = g.stride_c == 1 && g.stride_x == g.channels;
  if (!interleaved && g.stride_x != 1) throw Error("rank filter: unsupported image strides");
  const int64_t ci = interleaved ? g.channels : 1, planes = interleaved ? 1 : g.channels;
  const T fill = p.op == RankOp::kMin ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  const BorderMode border = p.op == RankOp::kMedian ? BorderMode::kClamp : p.border;
  std::vector<int64_t> xs(static_cast<size_t>(g.width + p.kw - 1)), ys(static_cast<size_t>(g.height + p.kh - 1));
  for (size_t k = 0; k < xs.size(); ++k) xs[k] = BorderIndex(int64_t(k) - p.anchor_x, g.width, border);
  for (size_t k = 0; k < ys.size(); ++k) ys[k] = BorderIndex(int64_t(k) - p.anchor_y, g.height, border);
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* src = in + pl * g.stride_c;
    T* dst = out + pl * g.stride_c;
    if (p.op != RankOp::kMedian) {
      MorphPlane(src, dst, g, ci, p, xs, ys, fill);
    } else if (p.kw == 3 && p.kh == 3 && p.anchor_x == 1) {
      Median3x3Plane(src, dst, g, ci, ys);
    } else {
      MedianPlane(src, dst, g, ci, p, xs, ys, net);
    }
  }
}

}  // namespace

bool RankFilterSupports(DType t) {
  return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kUInt16 || t == DType::kFloat32;
}

std::vector<std::pair<uint8_t, uint8_t>> SelectionNetwork(int n, int k) {
  if (n < 1 || n > morph_detail::kMaxNetwork || k < 0 || k >= n) throw Error("SelectionNetwork: bad size or rank");
  const morph_detail::SelectionNet net = morph_detail::MakeSelectionNetwork(n, k);
  std::vector<std::pair<uint8_t, uint8_t>> out;
  for (int c = 0; c < net.size; ++c) out.emplace_back(net.a[c], net.b[c]);
  return out;
}

void RankFilter2D(const void* in, void* out, DType type, const ImageGeom& g, const RankFilterParams& p) {
  if (g.height <= 0 || g.width <= 0 || g.channels <= 0) return;
  if (p.kw < 1 || p.kh < 1 || p.anchor_x < 0 || p.anchor_x >= p.kw || p.anchor_y < 0 || p.anchor_y >= p.kh)
    throw Error("rank filter: bad window or anchor");
  const int64_t count = int64_t(p.kw) * p.kh;
  std::vector<std::pair<uint8_t, uint8_t>> net;
  if (p.op == RankOp::kMedian && count <= morph_detail::kMaxNetwork) net = SelectionNetwork(int(count), int(count / 2));
  VisitDTypeIn<FilterDTypes>(type, "rank filters", [&](auto z) {
    using T = decltype(z);
    RankPass(static_cast<const T*>(in), static_cast<T*>(out), g, p, net);
  });
}

}  // namespace sluice::kernels
