#include "kernels/morphology/rank_filter.h"

#include <algorithm>
#include <limits>

#include "kernels/morphology/rank_rows_hwy.h"
#include "kernels/morphology/selection_network.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

template <typename Fn>
void VisitRankType(DType t, Fn&& fn) {
  switch (t) {
    case DType::kUInt8: fn(uint8_t{}); return;
    case DType::kInt16: fn(int16_t{}); return;
    case DType::kUInt16: fn(uint16_t{}); return;
    case DType::kFloat32: fn(float{}); return;
    default: throw Error("rank filters do not support " + std::string(ToString(t)));
  }
}

// One pass of the filter from `in` to `out` (same geometry, not overlapping).
template <typename T>
void RankPass(const T* in, T* out, const ImageGeom& g, const RankFilterParams& p,
              const std::vector<std::pair<uint8_t, uint8_t>>& net) {
  const bool interleaved = g.stride_c == 1 && g.stride_x == g.channels;
  if (!interleaved && g.stride_x != 1) throw Error("rank filter: unsupported image strides");
  const int64_t ci = interleaved ? g.channels : 1, planes = interleaved ? 1 : g.channels;
  const int kw = p.kw, kh = p.kh;
  const int64_t n = g.width * ci, wp = g.width + kw - 1, count = int64_t(kw) * kh;
  const DType type = TypeToDType<T>::value;
  const T fill = p.op == RankOp::kMin ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  const BorderMode border = p.op == RankOp::kMedian ? BorderMode::kClamp : p.border;
  std::vector<int64_t> xs(static_cast<size_t>(wp)), ys(static_cast<size_t>(g.height + kh - 1));
  for (int64_t k = 0; k < wp; ++k) xs[size_t(k)] = BorderIndex(k - p.anchor_x, g.width, border);
  for (size_t k = 0; k < ys.size(); ++k) ys[k] = BorderIndex(int64_t(k) - p.anchor_y, g.height, border);
  // Median: a ring of kh padded rows. Min / max: one padded row, then a ring of kh horizontal results.
  const bool median = p.op == RankOp::kMedian;
  const int64_t slot_len = median ? wp * ci : n;
  std::vector<T> ring(static_cast<size_t>(kh * slot_len)), pad(static_cast<size_t>(wp * ci)), acc(static_cast<size_t>(n));
  std::vector<const void*> srcs(static_cast<size_t>(std::max(kw, kh)));
  std::vector<uint8_t> pairs;
  for (auto [a, b] : net) pairs.insert(pairs.end(), {a, b});
  std::vector<T> window(static_cast<size_t>(count));
  for (int64_t pl = 0; pl < planes; ++pl) {
    const T* src = in + pl * g.stride_c;
    T* dst_plane = out + pl * g.stride_c;
    // The padded row: the interior is one copy (contiguous pixels), only the window's margins go
    // through the border table.
    const int64_t left = std::min<int64_t>(p.anchor_x, wp), right_start = std::min<int64_t>(p.anchor_x + g.width, wp);
    auto pad_row = [&](int64_t r, T* row) {
      const int64_t sy = ys[size_t(r)];
      if (sy < 0) {
        std::fill(row, row + wp * ci, fill);
        return;
      }
      const T* s = src + sy * g.stride_y;
      auto by_table = [&](int64_t k) {
        const int64_t sx = xs[size_t(k)];
        for (int64_t c = 0; c < ci; ++c) row[k * ci + c] = sx < 0 ? fill : s[sx * g.stride_x + c];
      };
      for (int64_t k = 0; k < left; ++k) by_table(k);
      if (g.stride_x == ci) {
        std::copy(s, s + (right_start - left) * ci, row + left * ci);
      } else {
        for (int64_t k = left; k < right_start; ++k) by_table(k);
      }
      for (int64_t k = right_start; k < wp; ++k) by_table(k);
    };
    auto load = [&](int64_t r) {
      T* slot = ring.data() + (r % kh) * slot_len;
      if (median) {
        pad_row(r, slot);
      } else {
        const bool is_max = p.op == RankOp::kMax;
        const int64_t sy = ys[size_t(r)];
        // Outputs [x_lo, x_hi) have every tap inside the row: read the source row directly; only
        // the margins go through a padded copy of the columns they read.
        const int64_t x_lo = p.anchor_x, x_hi = g.width - (kw - 1 - p.anchor_x);
        if (sy < 0 || g.stride_x != ci || x_hi <= x_lo) {
          pad_row(r, pad.data());
          for (int j = 0; j < kw; ++j) srcs[size_t(j)] = pad.data() + j * ci;
          morph_detail::ExtremumOfRows(srcs.data(), kw, n, is_max, type, slot);
          return;
        }
        const T* s = src + sy * g.stride_y;
        for (int j = 0; j < kw; ++j) srcs[size_t(j)] = s + (x_lo - p.anchor_x + j) * ci;
        morph_detail::ExtremumOfRows(srcs.data(), kw, (x_hi - x_lo) * ci, is_max, type, slot + x_lo * ci);
        // Margins: padded columns k = x + j for outputs x in [0, x_lo) and [x_hi, width).
        auto margin = [&](int64_t x0, int64_t x1) {
          if (x1 <= x0) return;
          for (int64_t k = x0; k < x1 + kw - 1; ++k) {
            const int64_t sx = xs[size_t(k)];
            for (int64_t c = 0; c < ci; ++c) pad[size_t(k * ci + c)] = sx < 0 ? fill : s[sx * g.stride_x + c];
          }
          for (int j = 0; j < kw; ++j) srcs[size_t(j)] = pad.data() + (x0 + j) * ci;
          morph_detail::ExtremumOfRows(srcs.data(), kw, (x1 - x0) * ci, is_max, type, slot + x0 * ci);
        };
        margin(0, x_lo);
        margin(x_hi, g.width);
      }
    };
    for (int64_t r = 0; r + 1 < kh; ++r) load(r);
    for (int64_t y = 0; y < g.height; ++y) {
      load(y + kh - 1);
      const bool direct = g.stride_x == ci;
      T* dst = dst_plane + y * g.stride_y;
      T* o = direct ? dst : acc.data();
      for (int i = 0; i < kh; ++i) srcs[size_t(i)] = ring.data() + ((y + i) % kh) * slot_len;
      if (!median) {
        morph_detail::ExtremumOfRows(srcs.data(), kh, n, p.op == RankOp::kMax, type, o);
      } else if (count <= morph_detail::kMaxNetwork) {
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
      if (!direct)
        for (int64_t x = 0; x < g.width; ++x)
          for (int64_t c = 0; c < ci; ++c) dst[x * g.stride_x + c] = acc[size_t(x * ci + c)];
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
  VisitRankType(type, [&](auto z) {
    using T = decltype(z);
    RankPass(static_cast<const T*>(in), static_cast<T*>(out), g, p, net);
  });
}

}  // namespace sluice::kernels
