#include "kernels/filter/convolution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dtype_list.h"
#include "kernels/filter/dense_row_hwy.h"
#include "kernels/filter/separable_u8_hwy.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

template <typename T>
inline T StoreSat(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    if (!(v == v)) return T(0);  // NaN
    constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
    // Round to nearest even without a libm call (nearbyintf is one on baseline x86-64, and it was
    // most of a 3x3 filter's time): clamped to one step outside the range first, adding and
    // subtracting 1.5 * 2^23 leaves the rounded value, exactly as nearbyint would.
    v = v < lo - 1 ? lo - 1 : (v > hi + 1 ? hi + 1 : v);
    constexpr float kMagic = 12582912.0f;  // IEEE arithmetic: (v + M) - M is not folded to v
    v = (v + kMagic) - kMagic;
    return static_cast<T>(v < lo ? lo : (v > hi ? hi : v));
  }
}

// Source indices of `n` padded positions starting at `first` (may be negative) on an axis of `len`.
std::vector<int64_t> IndexTable(int64_t first, int64_t n, int64_t len, BorderMode mode) {
  std::vector<int64_t> t(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) t[static_cast<size_t>(k)] = BorderIndex(first + k, len, mode);
  return t;
}

// One channel's rows [first_row, first_row + rows) of the padded image, converted to float.
template <typename In>
void PadChannel(const In* in, const ImageGeom& g, int64_t c, const std::vector<int64_t>& ys,
                const std::vector<int64_t>& xs, float fill, float* out) {
  const int64_t wp = static_cast<int64_t>(xs.size());
  for (size_t r = 0; r < ys.size(); ++r) {
    float* row = out + static_cast<int64_t>(r) * wp;
    const int64_t sy = ys[r];
    if (sy < 0) {
      std::fill(row, row + wp, fill);
      continue;
    }
    const In* src = in + sy * g.stride_y + c * g.stride_c;
    for (int64_t k = 0; k < wp; ++k) {
      const int64_t sx = xs[static_cast<size_t>(k)];
      row[k] = sx < 0 ? fill : static_cast<float>(src[sx * g.stride_x]);
    }
  }
}

template <typename In, typename Out>
void Filter2DTyped(const In* in, const ImageGeom& ig, Out* out, const ImageGeom& og, const FilterParams& p) {
  const int64_t ay = p.valid ? 0 : p.anchor_y, ax = p.valid ? 0 : p.anchor_x;
  const int64_t hp = og.height + p.kh - 1, wp = og.width + p.kw - 1;
  const auto ys = IndexTable(-ay, hp, ig.height, p.border), xs = IndexTable(-ax, wp, ig.width, p.border);
  std::vector<float> padded(static_cast<size_t>(hp * wp)), acc(static_cast<size_t>(og.width));
  for (int64_t c = 0; c < ig.channels; ++c) {
    PadChannel(in, ig, c, ys, xs, p.fill_value, padded.data());
    for (int64_t y = 0; y < og.height; ++y) {
      std::fill(acc.begin(), acc.end(), 0.f);
      float* a = acc.data();
      for (int i = 0; i < p.kh; ++i) {
        const float* prow = padded.data() + (y + i) * wp;
        for (int j = 0; j < p.kw; ++j) {
          const float f = p.filter[i * p.kw + j];
          if (f == 0.f) continue;
          const float* s = prow + j;
          for (int64_t x = 0; x < og.width; ++x) a[x] += f * s[x];
        }
      }
      Out* dst = out + y * og.stride_y + c * og.stride_c;
      for (int64_t x = 0; x < og.width; ++x) dst[x * og.stride_x] = StoreSat<Out>(a[x]);
    }
  }
}

// Out from float for a whole row, with StoreSat's results (NaN -> 0, round to nearest even,
// saturate), written without branches: a sharpening filter's results fall outside the range at
// random, which a branch predicts badly. (uint8 rows are converted by DenseRow itself.)
template <typename Out>
void StoreSatRow(const float* a, Out* dst, int64_t n) {
  if constexpr (std::is_same_v<Out, float>) {
    std::copy(a, a + n, dst);
  } else {
    constexpr float lo = static_cast<float>(std::numeric_limits<Out>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<Out>::max());
    constexpr float kMagic = 12582912.0f;
    for (int64_t e = 0; e < n; ++e) {
      float v = a[e];
      v = v == v ? v : 0.f;
      v = v > lo - 1 ? v : lo - 1;
      v = v < hi + 1 ? v : hi + 1;
      v = (v + kMagic) - kMagic;
      v = v > lo ? v : lo;
      v = v < hi ? v : hi;
      dst[e] = static_cast<Out>(static_cast<int32_t>(v));
    }
  }
}

// Padded row `sy` (< 0: the fill row) of an interleaved image, converted to float: the runs of
// consecutive source columns (the whole interior) are one contiguous conversion.
template <typename In>
void PadRowInterleaved(const In* in, const ImageGeom& g, int64_t sy, const std::vector<int64_t>& xs, float fill,
                       float* row) {
  const int64_t wp = static_cast<int64_t>(xs.size()), c_n = g.channels;
  if (sy < 0) {
    std::fill(row, row + wp * c_n, fill);
    return;
  }
  const In* src = in + sy * g.stride_y;
  for (int64_t k = 0; k < wp;) {
    const int64_t sx = xs[static_cast<size_t>(k)];
    if (sx < 0) {
      std::fill(row + k * c_n, row + (k + 1) * c_n, fill);
      ++k;
      continue;
    }
    int64_t run = 1;
    while (k + run < wp && xs[static_cast<size_t>(k + run)] == sx + run) ++run;
    const In* s = src + sx * c_n;
    float* d = row + k * c_n;
    for (int64_t e = 0; e < run * c_n; ++e) d[e] = static_cast<float>(s[e]);
    k += run;
  }
}

bool Interleaved(const ImageGeom& g) {
  return g.stride_c == 1 && g.stride_x == g.channels && g.stride_y == g.width * g.channels;
}

// Filter2DTyped for interleaved (HWC) images, the common case: each tap is one multiply-add over
// a whole row of width * channels elements, and the padded rows are kept in a ring of kh rows (each
// converted once). The sums are Filter2DTyped's, term for term and in the same order.
template <typename In, typename Out>
void Filter2DInterleaved(const In* in, const ImageGeom& ig, Out* out, const ImageGeom& og, const FilterParams& p) {
  const int64_t ay = p.valid ? 0 : p.anchor_y, ax = p.valid ? 0 : p.anchor_x;
  const int64_t c_n = ig.channels;
  const int64_t hp = og.height + p.kh - 1, wp = og.width + p.kw - 1, row_len = wp * c_n, ne = og.width * c_n;
  const auto ys = IndexTable(-ay, hp, ig.height, p.border), xs = IndexTable(-ax, wp, ig.width, p.border);
  std::vector<float> ring(static_cast<size_t>(p.kh * row_len)), acc(static_cast<size_t>(ne)), taps;
  std::vector<const float*> rows;
  auto slot = [&](int64_t r) { return ring.data() + (r % p.kh) * row_len; };
  for (int64_t r = 0; r + 1 < p.kh; ++r) PadRowInterleaved(in, ig, ys[static_cast<size_t>(r)], xs, p.fill_value, slot(r));
  for (int64_t y = 0; y < og.height; ++y) {
    const int64_t last = y + p.kh - 1;
    PadRowInterleaved(in, ig, ys[static_cast<size_t>(last)], xs, p.fill_value, slot(last));
    taps.clear();
    for (int i = 0; i < p.kh; ++i)
      for (int j = 0; j < p.kw; ++j)
        if (const float f = p.filter[i * p.kw + j]; f != 0.f) {
          rows.push_back(slot(y + i) + j * c_n);
          taps.push_back(f);
        }
    Out* dst = out + y * og.stride_y;
    if constexpr (std::is_same_v<Out, uint8_t>) {
      filter_detail::DenseRow(rows.data(), taps.data(), int(taps.size()), ne, nullptr, dst);
    } else {
      filter_detail::DenseRow(rows.data(), taps.data(), int(taps.size()), ne, acc.data(), nullptr);
      StoreSatRow(acc.data(), dst, ne);
    }
    rows.clear();
  }
}

template <typename In, typename Out>
void SeparableTyped(const In* in, Out* out, const ImageGeom& g, const std::vector<float>& wy,
                    const std::vector<float>& wx, BorderMode border) {
  const int64_t kx = static_cast<int64_t>(wx.size()), ky = static_cast<int64_t>(wy.size());
  const int64_t rx = kx / 2, ry = ky / 2;
  const int64_t wp = g.width + kx - 1;
  const auto xs = IndexTable(-rx, wp, g.width, border);
  const auto yrows = IndexTable(-ry, g.height + ky - 1, g.height, border);
  std::vector<float> tmp(static_cast<size_t>(g.height * g.width)), pad(static_cast<size_t>(wp)),
      acc(static_cast<size_t>(g.width));
  for (int64_t c = 0; c < g.channels; ++c) {
    // Horizontal pass over every input row.
    for (int64_t y = 0; y < g.height; ++y) {
      PadChannel(in, g, c, std::vector<int64_t>{y}, xs, 0.f, pad.data());
      float* t = tmp.data() + y * g.width;
      std::fill(t, t + g.width, 0.f);
      for (int64_t j = 0; j < kx; ++j) {
        const float f = wx[static_cast<size_t>(j)];
        const float* s = pad.data() + j;
        for (int64_t x = 0; x < g.width; ++x) t[x] += f * s[x];
      }
    }
    // Vertical pass.
    for (int64_t y = 0; y < g.height; ++y) {
      std::fill(acc.begin(), acc.end(), 0.f);
      float* a = acc.data();
      for (int64_t i = 0; i < ky; ++i) {
        const float f = wy[static_cast<size_t>(i)];
        const int64_t sy = yrows[static_cast<size_t>(y + i)];
        if (sy < 0) continue;  // constant border: zero rows
        const float* s = tmp.data() + sy * g.width;
        for (int64_t x = 0; x < g.width; ++x) a[x] += f * s[x];
      }
      Out* dst = out + y * g.stride_y + c * g.stride_c;
      for (int64_t x = 0; x < g.width; ++x) dst[x * g.stride_x] = StoreSat<Out>(a[x]);
    }
  }
}

// One axis of the fixed-point path (separable_u8_hwy.h's SeparableU8FixedArgs).
struct FixedAxis {
  std::vector<uint16_t> w;  // round(w * 2^16)
  bool sym = false;
  uint16_t bias = 0;        // half the number of truncated terms (units of 2^-7)
  double trunc = 0;         // the most the truncation of its terms moves a sum, in pixel values
  double sum_q = 0;         // sum of w / 2^16 over every tap
  double sum_f = 0;         // sum of the float weights
  double werr = 0;          // max(sum of positive, sum of negative) of (W / 2^16 - w)
};

// False where the window does not suit uint16 fixed point: a negative, non-finite or >= 1 weight,
// or more than kMaxFixedTaps taps.
bool MakeFixedAxis(const std::vector<float>& w, FixedAxis* f) {
  const size_t k = w.size();
  if (k == 0 || k > static_cast<size_t>(filter_detail::kMaxFixedTaps)) return false;
  f->w.resize(k);
  double pos = 0, neg = 0;
  for (size_t j = 0; j < k; ++j) {
    if (!(w[j] >= 0.f) || !std::isfinite(w[j])) return false;
    const double q = std::nearbyint(static_cast<double>(w[j]) * 65536.0);
    if (q > 65535.0) return false;
    f->w[j] = static_cast<uint16_t>(q);
    const double e = q / 65536.0 - static_cast<double>(w[j]);
    (e > 0 ? pos : neg) += std::abs(e);
    f->sum_q += q / 65536.0;
    f->sum_f += static_cast<double>(w[j]);
  }
  f->werr = std::max(pos, neg);
  f->sym = true;
  for (size_t j = 0; j < k / 2; ++j) f->sym = f->sym && w[j] == w[k - 1 - j];
  const size_t terms = f->sym ? k - k / 2 : k;
  f->bias = static_cast<uint16_t>(terms / 2);
  f->trunc = static_cast<double>(std::max(terms - f->bias, size_t{f->bias})) / 128.0;
  return true;
}

// What both uint8 paths take besides their weights and scratch: the padded rows' and columns'
// source indices and the column tile, for rows of `c` interleaved channels (1 for planes).
struct U8Axes {
  int64_t c, tile;
  std::vector<int64_t> xs, yrows;
};
U8Axes MakeU8Axes(const ImageGeom& g, int64_t kx, int64_t ky, BorderMode border, bool interleaved) {
  U8Axes ax;
  ax.c = interleaved ? g.channels : 1;
  ax.tile = std::min(g.width, filter_detail::SeparableTileWidth(ax.c));
  ax.xs = IndexTable(-(kx / 2), g.width + kx - 1, g.width, border);
  ax.yrows = IndexTable(-(ky / 2), g.height + ky - 1, g.height, border);
  return ax;
}

// Fills the geometry fields of a kernel's arguments and runs it once on the interleaved image, or
// once per plane.
template <typename Args, typename Kernel>
void RunU8Separable(Args a, const uint8_t* in, uint8_t* out, const ImageGeom& g, const U8Axes& ax, Kernel kernel) {
  a.height = g.height;
  a.width = g.width;
  a.channels = ax.c;
  a.in_row_stride = a.out_row_stride = g.stride_y;
  a.xs = ax.xs.data();
  a.yrows = ax.yrows.data();
  const int64_t planes = ax.c == g.channels && g.stride_c == 1 ? 1 : g.channels;
  for (int64_t ch = 0; ch < planes; ++ch) {
    a.in = in + (planes > 1 ? ch * g.stride_c : 0);
    a.out = out + (planes > 1 ? ch * g.stride_c : 0);
    kernel(a);
  }
}

// uint8 -> uint8 in fixed point (SeparableU8FixedInterleaved) where the windows allow it: no uint16
// sum can wrap, and the result is provably within 1 of the float path's (bounds below, in pixel
// values: weight rounding, truncation, and 0.01 for the float path's own rounding). False: not
// applicable.
bool SeparableU8FixedPoint(const uint8_t* in, uint8_t* out, const ImageGeom& g, const std::vector<float>& wy,
                           const std::vector<float>& wx, BorderMode border, bool interleaved) {
  FixedAxis fx, fy;
  if (!MakeFixedAxis(wx, &fx) || !MakeFixedAxis(wy, &fy)) return false;
  // Largest horizontal sum (units of 2^-7); vertical pairs add two of them.
  const double h_max = fx.bias + 255.0 * 128.0 * fx.sum_q;
  if (2 * h_max > 65535.0 || fy.bias + 64 + h_max * fy.sum_q > 65535.0) return false;
  const double err_h = 255.0 * fx.werr + fx.trunc;
  const double err = 255.0 * std::max(fx.sum_f, fx.sum_q) * fy.werr + fy.sum_q * err_h + fy.trunc + 0.01;
  if (!(err < 1.0)) return false;
  const int64_t kx = static_cast<int64_t>(wx.size()), ky = static_cast<int64_t>(wy.size());
  const U8Axes ax = MakeU8Axes(g, kx, ky, border, interleaved);
  std::vector<uint16_t> ring(static_cast<size_t>(ky * ax.tile * ax.c)),
      pad(static_cast<size_t>((ax.tile + kx - 1) * ax.c)), zero(static_cast<size_t>(ax.tile * ax.c));
  filter_detail::SeparableU8FixedArgs a{};
  a.wx = fx.w.data();
  a.kx = kx;
  a.sym_x = fx.sym;
  a.bias_x = fx.bias;
  a.wy = fy.w.data();
  a.ky = ky;
  a.sym_y = fy.sym;
  a.bias_y = fy.bias;
  a.tile_w = ax.tile;
  a.ring = ring.data();
  a.pad = pad.data();
  a.zero = zero.data();
  RunU8Separable(a, in, out, g, ax, [](const auto& args) { filter_detail::SeparableU8FixedInterleaved(args); });
  return true;
}

// uint8 -> uint8 with channels interleaved in rows (HWC), or planes with unit x stride (CHW, HW):
// fixed point where the windows allow (within 1 of the float result), else the Highway float path
// (separable_u8_hwy.h), bit-identical to SeparableTyped. False: not applicable.
bool SeparableU8Fast(const uint8_t* in, uint8_t* out, const ImageGeom& g, const std::vector<float>& wy,
                     const std::vector<float>& wx, BorderMode border) {
  const bool interleaved = g.stride_c == 1 && g.stride_x == g.channels;
  const bool planar = g.stride_x == 1 && g.channels >= 1;
  if ((!interleaved && !planar) || g.channels < 1 || g.height <= 0 || g.width <= 0 || wx.empty() || wy.empty())
    return false;
  if (SeparableU8FixedPoint(in, out, g, wy, wx, border, interleaved)) return true;
  const int64_t kx = static_cast<int64_t>(wx.size()), ky = static_cast<int64_t>(wy.size());
  const U8Axes ax = MakeU8Axes(g, kx, ky, border, interleaved);
  std::vector<float> ring(static_cast<size_t>(ky * ax.tile * ax.c)), pad(static_cast<size_t>((ax.tile + kx - 1) * ax.c)),
      part(static_cast<size_t>(ax.tile * ax.c));
  filter_detail::SeparableU8Args a{};
  a.wx = wx.data();
  a.kx = kx;
  a.wy = wy.data();
  a.ky = ky;
  a.tmp = ring.data();
  a.pad = pad.data();
  a.part = part.data();
  RunU8Separable(a, in, out, g, ax, [](const auto& args) { filter_detail::SeparableU8Interleaved(args); });
  return true;
}

}  // namespace

bool ParseBorderMode(const std::string& name, BorderMode* mode) {
  if (name == "reflect_101") *mode = BorderMode::kReflect101;
  else if (name == "reflect_1001") *mode = BorderMode::kReflect1001;
  else if (name == "wrap") *mode = BorderMode::kWrap;
  else if (name == "clamp") *mode = BorderMode::kClamp;
  else if (name == "constant") *mode = BorderMode::kConstant;
  else return false;
  return true;
}

int64_t BorderIndex(int64_t i, int64_t n, BorderMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case BorderMode::kConstant: return -1;
    case BorderMode::kClamp: return i < 0 ? 0 : n - 1;
    case BorderMode::kWrap: return ((i % n) + n) % n;
    case BorderMode::kReflect1001: {
      const int64_t period = 2 * n;
      int64_t k = ((i % period) + period) % period;
      return k < n ? k : period - 1 - k;
    }
    case BorderMode::kReflect101: {
      if (n == 1) return 0;
      const int64_t period = 2 * n - 2;
      int64_t k = ((i % period) + period) % period;
      return k < n ? k : period - k;
    }
  }
  return 0;
}

bool FilterKernelSupports(DType t) {
  return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kUInt16 || t == DType::kFloat32;
}

void Filter2D(const void* in, DType in_type, const ImageGeom& in_geom, void* out, DType out_type,
              const ImageGeom& out_geom, const FilterParams& p) {
  VisitDTypeIn<FilterDTypes>(in_type, "filter kernels", [&](auto in_tag) {
    using In = decltype(in_tag);
    VisitDTypeIn<FilterDTypes>(out_type, "filter kernels", [&](auto out_tag) {
      using Out = decltype(out_tag);
      if (Interleaved(in_geom) && Interleaved(out_geom) && in_geom.channels == out_geom.channels)
        Filter2DInterleaved(static_cast<const In*>(in), in_geom, static_cast<Out*>(out), out_geom, p);
      else
        Filter2DTyped(static_cast<const In*>(in), in_geom, static_cast<Out*>(out), out_geom, p);
    });
  });
}

void SeparableFilter2D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& geom,
                       const std::vector<float>& wy, const std::vector<float>& wx, BorderMode border) {
  if (in_type == DType::kUInt8 && out_type == DType::kUInt8 &&
      SeparableU8Fast(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), geom, wy, wx, border))
    return;
  VisitDTypeIn<FilterDTypes>(in_type, "filter kernels", [&](auto in_tag) {
    using In = decltype(in_tag);
    VisitDTypeIn<FilterDTypes>(out_type, "filter kernels", [&](auto out_tag) {
      using Out = decltype(out_tag);
      SeparableTyped(static_cast<const In*>(in), static_cast<Out*>(out), geom, wy, wx, border);
    });
  });
}

}  // namespace sluice::kernels
