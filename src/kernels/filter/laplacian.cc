#include "kernels/filter/laplacian.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/dtype_list.h"
#include "kernels/filter/laplacian_rows_hwy.h"
#include "kernels/tensor/saturate_cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Padded row `sy` of one plane (ci interleaved channels), converted to float: the interior is one
// contiguous conversion, the rx columns on each side come from the border table.
template <typename In, typename Acc>
void PadRow(const In* plane, const ImageGeom& g, int64_t ci, int64_t sy, const std::vector<int64_t>& xs, int64_t rx,
            Acc* row) {
  const In* src = plane + sy * g.stride_y;
  const int64_t w = g.width;
  auto copy_px = [&](int64_t k, int64_t sx) {
    for (int64_t c = 0; c < ci; ++c) row[k * ci + c] = static_cast<Acc>(src[sx * g.stride_x + c]);
  };
  for (int64_t k = 0; k < rx; ++k) copy_px(k, xs[static_cast<size_t>(k)]);
  if (g.stride_x == ci) {
    Acc* d = row + rx * ci;
    for (int64_t e = 0; e < w * ci; ++e) d[e] = static_cast<Acc>(src[e]);
  } else {
    for (int64_t x = 0; x < w; ++x) copy_px(rx + x, x);
  }
  for (int64_t k = rx + w; k < w + 2 * rx; ++k) copy_px(k, xs[static_cast<size_t>(k)]);
}

// The row ring over every plane with accumulator type Acc (float, or int16 for exact integers).
template <typename Acc, typename In, typename Out>
void RunRows(const In* in, Out* out, const ImageGeom& g, int64_t ci, int64_t planes, int64_t rx, int64_t ry,
             const std::vector<int64_t>& xs, const std::vector<int64_t>& ys, const std::vector<Acc>& ws,
             const std::vector<Acc>& wd, const std::vector<Acc>& a, const std::vector<Acc>& b) {
  const int64_t slots = 2 * ry + 1, n = g.width * ci, wp = g.width + 2 * rx;
  std::vector<Acc> pad(static_cast<size_t>(wp * ci)), hs(static_cast<size_t>(slots * n)),
      hd(static_cast<size_t>(slots * n));
  std::vector<float> acc(static_cast<size_t>(n));
  std::vector<const Acc*> ra(static_cast<size_t>(slots)), rb(static_cast<size_t>(slots));
  for (int64_t pl = 0; pl < planes; ++pl) {
    const In* src = in + pl * g.stride_c;
    Out* dst_plane = out + pl * g.stride_c;
    auto row_pass = [&](int64_t r) {
      PadRow(src, g, ci, ys[static_cast<size_t>(r)], xs, rx, pad.data());
      const int64_t s = (r % slots) * n;
      if constexpr (std::is_same_v<Acc, int16_t>)
        filter_detail::LaplacianRowPassI16(pad.data() + rx * ci, n, ci, int(rx), ws.data(), wd.data(), hs.data() + s,
                                           hd.data() + s);
      else
        filter_detail::LaplacianRowPass(pad.data() + rx * ci, n, ci, int(rx), ws.data(), wd.data(), hs.data() + s,
                                        hd.data() + s);
    };
    for (int64_t r = 0; r < 2 * ry; ++r) row_pass(r);
    for (int64_t y = 0; y < g.height; ++y) {
      row_pass(y + 2 * ry);
      for (int64_t i = 0; i < slots; ++i) {
        ra[size_t(i)] = hs.data() + ((y + i) % slots) * n;
        rb[size_t(i)] = hd.data() + ((y + i) % slots) * n;
      }
      Out* dst = dst_plane + y * g.stride_y;
      const bool direct = g.stride_x == ci;
      if constexpr (std::is_same_v<Acc, int16_t>) {  // direct, Out uint8 or int16 (the caller checked)
        if constexpr (std::is_same_v<Out, uint8_t>)
          filter_detail::LaplacianColumnPassI16(ra.data(), a.data(), rb.data(), b.data(), int(ry), n, nullptr, dst);
        else
          filter_detail::LaplacianColumnPassI16(ra.data(), a.data(), rb.data(), b.data(), int(ry), n,
                                                reinterpret_cast<int16_t*>(dst), nullptr);
        continue;
      } else {
      if constexpr (std::is_same_v<Out, uint8_t>) {
        if (direct) {
          filter_detail::LaplacianColumnPass(ra.data(), a.data(), rb.data(), b.data(), int(ry), n, nullptr, dst);
          continue;
        }
      }
      filter_detail::LaplacianColumnPass(ra.data(), a.data(), rb.data(), b.data(), int(ry), n, acc.data(), nullptr);
      if (direct) {
        for (int64_t e = 0; e < n; ++e) dst[e] = SaturateArithmetic<Out>(acc[static_cast<size_t>(e)]);
      } else {
        for (int64_t x = 0; x < g.width; ++x)
          for (int64_t c = 0; c < ci; ++c)
            dst[x * g.stride_x + c] = SaturateArithmetic<Out>(acc[static_cast<size_t>(x * ci + c)]);
      }
      }
    }
  }
}


template <typename In, typename Out>
void LaplacianTyped(const In* in, Out* out, const ImageGeom& g, const LaplacianWindows& lw) {
  // HWC: one plane of `channels` interleaved channels; CHW / HW: one plane per channel.
  const bool interleaved = g.stride_c == 1 && g.stride_x == g.channels;
  if (!interleaved && g.stride_x != 1) throw Error("laplacian: unsupported image strides");
  const int64_t ci = interleaved ? g.channels : 1, planes = interleaved ? 1 : g.channels;
  const int kdy = int(lw.deriv_y.size()), ksx = int(lw.smooth_x.size());
  const int ksy = int(lw.smooth_y.size()), kdx = int(lw.deriv_x.size());
  for (const auto* w : {&lw.deriv_y, &lw.smooth_x, &lw.smooth_y, &lw.deriv_x}) {
    if (w->size() % 2 == 0) throw Error("laplacian: the windows must be of odd length");
    for (size_t k = 0; k < w->size(); ++k)
      if ((*w)[k] != (*w)[w->size() - 1 - k]) throw Error("laplacian: the windows must be symmetric");
  }
  const int64_t rx = std::max(ksx, kdx) / 2, ry = std::max(kdy, ksy) / 2;
  const int64_t wp = g.width + 2 * rx;
  std::vector<int64_t> xs(static_cast<size_t>(wp)), ys(static_cast<size_t>(g.height + 2 * ry));
  for (int64_t k = 0; k < wp; ++k) xs[static_cast<size_t>(k)] = BorderIndex(k - rx, g.width, BorderMode::kReflect101);
  for (size_t k = 0; k < ys.size(); ++k) ys[k] = BorderIndex(int64_t(k) - ry, g.height, BorderMode::kReflect101);
  // Weights by distance from the centre (0 beyond a shorter window), the scales folded into the
  // vertical ones.
  auto by_distance = [](const std::vector<float>& w, int64_t r, float scale) {
    std::vector<float> out(static_cast<size_t>(r + 1), 0.f);
    const int64_t c = int64_t(w.size()) / 2;
    for (int64_t d = 0; d <= c; ++d) out[size_t(d)] = w[size_t(c + d)] * scale;
    return out;
  };
  const std::vector<float> ws = by_distance(lw.smooth_x, rx, 1.f), wd = by_distance(lw.deriv_x, rx, 1.f);
  const std::vector<float> a = by_distance(lw.deriv_y, ry, lw.scale_y), b = by_distance(lw.smooth_y, ry, lw.scale_x);
  // uint8 -> uint8 / int16 with integer weights whose sums cannot leave int16: the same exact
  // integers in int16 lanes (twice the lanes of float32).
  if constexpr (std::is_same_v<In, uint8_t> && (std::is_same_v<Out, uint8_t> || std::is_same_v<Out, int16_t>)) {
    auto integral = [](const std::vector<float>& v) {
      for (float x : v)
        if (x != std::nearbyint(x) || std::fabs(x) > 4096) return false;
      return true;
    };
    auto abs_sum = [](const std::vector<float>& v) {
      double t = std::fabs(v[0]);
      for (size_t k = 1; k < v.size(); ++k) t += 2 * std::fabs(v[k]);
      return t;
    };
    const double row_bound = 255.0 * std::max(abs_sum(ws), abs_sum(wd));
    const double bound = 255.0 * (abs_sum(ws) * abs_sum(a) + abs_sum(wd) * abs_sum(b));
    if (integral(ws) && integral(wd) && integral(a) && integral(b) && row_bound <= 32767 && bound <= 32767 &&
        g.stride_x == ci) {
      auto i16 = [](const std::vector<float>& v) { return std::vector<int16_t>(v.begin(), v.end()); };
      RunRows<int16_t>(in, out, g, ci, planes, rx, ry, xs, ys, i16(ws), i16(wd), i16(a), i16(b));
      return;
    }
  }
  RunRows<float>(in, out, g, ci, planes, rx, ry, xs, ys, ws, wd, a, b);
}

}  // namespace

std::vector<float> LaplacianSmoothingWindow(int n) {
  if (n < 1 || n % 2 == 0) throw Error("laplacian smoothing window size must be odd and >= 1, got " + std::to_string(n));
  std::vector<float> w{1.f};
  for (int k = 1; k < n; ++k) {  // convolve with [1, 1]: binomial coefficients, exact in float up to n = 25
    std::vector<float> next(w.size() + 1, 0.f);
    for (size_t i = 0; i < w.size(); ++i) {
      next[i] += w[i];
      next[i + 1] += w[i];
    }
    w = std::move(next);
  }
  return w;
}

std::vector<float> LaplacianDerivativeWindow(int n) {
  if (n < 3 || n % 2 == 0) throw Error("laplacian derivative window size must be odd and >= 3, got " + std::to_string(n));
  const std::vector<float> s = LaplacianSmoothingWindow(n - 2);
  const float d2[3] = {1.f, -2.f, 1.f};
  std::vector<float> w(static_cast<size_t>(n), 0.f);
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < 3; ++j) w[i + j] += s[i] * d2[j];
  return w;
}

LaplacianWindows MakeLaplacianWindows(int wy, int wx, int sy, int sx, bool normalized, float scale_y, float scale_x) {
  LaplacianWindows w;
  w.deriv_y = LaplacianDerivativeWindow(wy);
  w.smooth_x = LaplacianSmoothingWindow(sx);
  w.smooth_y = LaplacianSmoothingWindow(sy);
  w.deriv_x = LaplacianDerivativeWindow(wx);
  if (normalized) {
    // DALI: 2^(-s + n + 2), s = the partial derivative's window sizes summed, n = 2 axes.
    w.scale_y = std::ldexp(1.f, -(wy + sx) + 4);
    w.scale_x = std::ldexp(1.f, -(wx + sy) + 4);
  } else {
    w.scale_y = scale_y;
    w.scale_x = scale_x;
  }
  return w;
}

void Laplacian2D(const void* in, DType in_type, void* out, DType out_type, const ImageGeom& geom,
                 const LaplacianWindows& w) {
  if (geom.height <= 0 || geom.width <= 0 || geom.channels <= 0) return;
  VisitDTypeIn<FilterDTypes>(in_type, "laplacian kernel", [&](auto i) {
    using In = decltype(i);
    VisitDTypeIn<FilterDTypes>(out_type, "laplacian kernel", [&](auto o) {
      using Out = decltype(o);
      LaplacianTyped(static_cast<const In*>(in), static_cast<Out*>(out), geom, w);
    });
  });
}

}  // namespace sluice::kernels
