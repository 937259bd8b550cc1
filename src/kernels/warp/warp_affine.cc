#include "kernels/warp/warp_affine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

#include "kernels/warp/warp_rows_hwy.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// Source coordinates beyond this are outside any image; clamping them keeps floor() in range of
// int64 (and maps NaN to the low end).
constexpr double kCoordLimit = 1 << 30;

inline double Limit(double v) {
  if (!(v > -kCoordLimit)) return -kCoordLimit;
  if (!(v < kCoordLimit)) return kCoordLimit;
  return v;
}

// std::floor for the Limit()ed coordinates (|v| <= 2^30 + 1), as an integer: truncation, then one
// down for negative non-integers. Exact, and without the libm call that x86-64's baseline (no
// SSE4.1 roundsd) makes of std::floor.
inline int64_t FloorInt(double v) {
  const auto t = static_cast<int64_t>(v);
  return t - (v < static_cast<double>(t) ? 1 : 0);
}

template <typename Out>
inline Out ConvertSat(float v) {
  if constexpr (std::is_same_v<Out, uint8_t>) {
    if (!(v > 0.0f)) return 0;  // NaN too
    if (v >= 255.0f) return 255;
    return static_cast<uint8_t>(v + 0.5f);  // half away from zero (v > 0)
  } else {
    return v;
  }
}

template <typename In, typename Out, int kC>
class Warper {
 public:
  Warper(HwcView<const In> in, HwcView<Out> out, const Affine2D& m, const WarpOptions& opt)
      : in_(in), out_(out), m_(m), opt_(opt), channels_(kC > 0 ? kC : static_cast<int>(in.channels)) {
    fill_in_ = ConvertSat<In>(opt.fill);
  }

  void Run() {
    if (in_.height == 0 || in_.width == 0) return RunEmptyInput();
    if constexpr (std::is_same_v<In, uint8_t> && std::is_same_v<Out, uint8_t>) {
      if (opt_.interp == WarpInterp::kLinear && FixedApplies()) return RunFixed();
    }
    for (int64_t y = 0; y < out_.height; ++y) {
      const double cy = static_cast<double>(y) + 0.5;
      const double bx = m_.m[0][1] * cy + m_.m[0][2], by = m_.m[1][1] * cy + m_.m[1][2];
      Out* row = out_.data + y * out_.width * channels_;
      const bool nearest = opt_.interp == WarpInterp::kNearest;
      if (nearest && !opt_.clamp && (UseSimd() || std::is_same_v<In, Out>)) {
        // The pixels whose source lies outside (the fill) are whole intervals at the row's ends:
        // filled here, so that only the groups across an edge take the scalar path.
        const auto [x0, x1] = NearestSourceInterval(bx, by);
        const Out fill = ConvertSat<Out>(static_cast<float>(fill_in_));
        std::fill(row, row + x0 * C(), fill);
        if (x0 < x1 && RowIsShiftedCopy(bx)) {
          const int64_t ix0 = FloorInt(Limit(m_.m[0][0] * (static_cast<double>(x0) + 0.5) + bx));
          const int64_t iy = FloorInt(Limit(by));
          std::memcpy(row + x0 * C(), Pixel(ix0, iy), static_cast<size_t>((x1 - x0) * C()) * sizeof(In));
        } else if (UseSimd()) {
          RowSimd(row, bx, by, true, x0, x1);
        } else {
          RowNearest(row, bx, by, x0, x1);
        }
        std::fill(row + x1 * C(), row + out_.width * C(), fill);
      } else if (UseSimd()) {
        RowSimd(row, bx, by, nearest, 0, out_.width);
      } else if (nearest) RowNearest(row, bx, by, 0, out_.width);
      else RowLinear(row, bx, by, 0, out_.width);
    }
  }

 private:
  int C() const { return kC > 0 ? kC : channels_; }

  const In* Pixel(int64_t x, int64_t y) const { return in_.data + (y * in_.width + x) * C(); }

  // An empty input has no pixel to clamp to: every output pixel is the fill (0 when clamping).
  void RunEmptyInput() {
    const Out v = opt_.clamp ? Out{} : ConvertSat<Out>(static_cast<float>(fill_in_));
    std::fill(out_.data, out_.data + out_.height * out_.width * C(), v);
  }

  // Output pixels [x_begin, x_end) of the row starting at `row`.
  void RowNearest(Out* row, double bx, double by, int64_t x_begin, int64_t x_end) const {
    const int c_n = C();
    row += x_begin * c_n;
    for (int64_t x = x_begin; x < x_end; ++x, row += c_n) {
      const double cx = static_cast<double>(x) + 0.5;
      int64_t ix = FloorInt(Limit(m_.m[0][0] * cx + bx));
      int64_t iy = FloorInt(Limit(m_.m[1][0] * cx + by));
      if (ix < 0 || iy < 0 || ix >= in_.width || iy >= in_.height) {
        if (!opt_.clamp) {
          const Out v = ConvertSat<Out>(static_cast<float>(fill_in_));
          for (int c = 0; c < c_n; ++c) row[c] = v;
          continue;
        }
        ix = std::clamp<int64_t>(ix, 0, in_.width - 1);
        iy = std::clamp<int64_t>(iy, 0, in_.height - 1);
      }
      const In* p = Pixel(ix, iy);
      for (int c = 0; c < c_n; ++c) row[c] = ConvertSat<Out>(static_cast<float>(p[c]));
    }
  }

  // The pixel at (x, y), or nullptr for the fill value (outside the image, not clamping).
  const In* Tap(int64_t x, int64_t y) const {
    if (x < 0 || y < 0 || x >= in_.width || y >= in_.height) {
      if (!opt_.clamp) return nullptr;
      x = std::clamp<int64_t>(x, 0, in_.width - 1);
      y = std::clamp<int64_t>(y, 0, in_.height - 1);
    }
    return Pixel(x, y);
  }

  // uint8 RGB -> uint8 RGB: the Highway path (bit-identical), whose 32-bit byte offsets need an
  // input under 2 GiB.
  bool UseSimd() const {
    if constexpr (std::is_same_v<In, uint8_t> && std::is_same_v<Out, uint8_t> && kC == 3)
      return in_.height * in_.width * 3 < (int64_t{1} << 31) - 64;
    else
      return false;
  }

  // Whether nearest sampling of a row is a copy of consecutive source pixels of one source row:
  // translations and horizontal shears (m00 = 1, m10 = 0; the row's source y is floor(by)). The
  // scalar path's ix = floor((x + 1/2) + bx), with x + 1/2 exact, is then x + floor(1/2 + bx) for
  // every x whose source is inside, as long as the rounding of the sum (a value in [0, in_w), so an
  // error below 2^-23 for in_w <= 2^30) cannot cross an integer: the exact sum's fractional part is
  // the same for every x, so one margin check covers the row.
  bool RowIsShiftedCopy(double bx) const {
    if constexpr (!std::is_same_v<In, Out>) {
      return false;
    } else {
      if (m_.m[0][0] != 1.0 || m_.m[1][0] != 0.0 || !(std::abs(bx) < (1 << 29)) || in_.width > (1 << 30))
        return false;
      const double f = bx + 0.5, frac = f - std::floor(f);
      constexpr double kMargin = 1.0 / (1 << 16);
      return frac > kMargin && frac < 1.0 - kMargin;
    }
  }

  // The output pixels [begin, end) of a row whose nearest source pixel, as RowNearest computes it,
  // lies inside the image: each coordinate is monotonic in x (a correctly rounded product and sum,
  // then floor), so each of the four bounds holds on a prefix or a suffix, found by bisection.
  std::pair<int64_t, int64_t> NearestSourceInterval(double bx, double by) const {
    const int64_t n = out_.width;
    auto bound = [&](double m, double b, int64_t size) {
      auto v = [&](int64_t x) { return FloorInt(Limit(m * (static_cast<double>(x) + 0.5) + b)); };
      auto guess = [&](double t) { return m != 0 ? (t - b) / m - 0.5 : 0.0; };
      if (m >= 0)
        return std::pair{FirstTrue([&](int64_t x) { return v(x) >= 0; }, guess(0), n),
                         FirstTrue([&](int64_t x) { return v(x) >= size; }, guess(static_cast<double>(size)), n)};
      return std::pair{FirstTrue([&](int64_t x) { return v(x) < size; }, guess(static_cast<double>(size)), n),
                       FirstTrue([&](int64_t x) { return v(x) < 0; }, guess(0), n)};
    };
    const auto [ax, ex] = bound(m_.m[0][0], bx, in_.width);
    const auto [ay, ey] = bound(m_.m[1][0], by, in_.height);
    const int64_t begin = std::max(ax, ay);
    return {begin, std::max(begin, std::min(ex, ey))};
  }

  void RowSimd(Out* row, double bx, double by, bool nearest, int64_t x_begin, int64_t x_end) const {
    if constexpr (std::is_same_v<In, uint8_t> && std::is_same_v<Out, uint8_t> && kC == 3) {
      constexpr int64_t kChunk = 256;  // pixels per call: the fallback list fits on the stack
      int64_t fallback[kChunk + 1];
      const auto group = static_cast<int64_t>(warp_detail::WarpRowGroupSize());
      for (int64_t x0 = x_begin; x0 < x_end; x0 += kChunk) {
        const int64_t x1 = std::min(x0 + kChunk, x_end);
        const warp_detail::WarpRowU8C3 args{in_.data,   in_.height, in_.width, row, x0, x1,
                                              m_.m[0][0], m_.m[1][0], bx,        by,  fallback};
        const size_t n = nearest ? warp_detail::WarpNearestRowU8C3(args) : warp_detail::WarpLinearRowU8C3(args);
        for (size_t k = 0; k < n; ++k) {
          const int64_t x = fallback[k], x_end = std::min(x + group, x1);
          if (nearest) RowNearest(row, bx, by, x, x_end);
          else RowLinear(row, bx, by, x, x_end);
        }
      }
    }
  }

  // Output pixels [x_begin, x_end) of the row starting at `row`.
  void RowLinear(Out* row, double bx, double by, int64_t x_begin, int64_t x_end) const {
    const int c_n = C();
    row += x_begin * c_n;
    for (int64_t x = x_begin; x < x_end; ++x, row += c_n) {
      const double cx = static_cast<double>(x) + 0.5;
      const double fx = Limit(m_.m[0][0] * cx + bx) - 0.5, fy = Limit(m_.m[1][0] * cx + by) - 0.5;
      const int64_t x0 = FloorInt(fx), y0 = FloorInt(fy);
      const auto qx = static_cast<float>(fx - static_cast<double>(x0));
      const auto qy = static_cast<float>(fy - static_cast<double>(y0));
      const float px = 1.0f - qx;
      const In *p00, *p01, *p10, *p11;
      if (x0 >= 0 && y0 >= 0 && x0 + 1 < in_.width && y0 + 1 < in_.height) {
        // Inside: the same blend as below, without the fill checks.
        p00 = Pixel(x0, y0);
        p01 = p00 + c_n;
        p10 = p00 + in_.width * c_n;
        p11 = p10 + c_n;
        for (int c = 0; c < c_n; ++c) {
          const float s0 = static_cast<float>(p00[c]) * px + static_cast<float>(p01[c]) * qx;
          const float s1 = static_cast<float>(p10[c]) * px + static_cast<float>(p11[c]) * qx;
          row[c] = ConvertSat<Out>(s0 + (s1 - s0) * qy);
        }
        continue;
      } else {
        p00 = Tap(x0, y0);
        p01 = Tap(x0 + 1, y0);
        p10 = Tap(x0, y0 + 1);
        p11 = Tap(x0 + 1, y0 + 1);
        if (!p00 && !p01 && !p10 && !p11) {
          const Out v = ConvertSat<Out>(static_cast<float>(fill_in_));
          for (int c = 0; c < c_n; ++c) row[c] = v;
          continue;
        }
      }
      const auto f = static_cast<float>(fill_in_);
      for (int c = 0; c < c_n; ++c) {
        const float s00 = p00 ? static_cast<float>(p00[c]) : f, s01 = p01 ? static_cast<float>(p01[c]) : f;
        const float s10 = p10 ? static_cast<float>(p10[c]) : f, s11 = p11 ? static_cast<float>(p11[c]) : f;
        const float s0 = s00 * px + s01 * qx;
        const float s1 = s10 * px + s11 * qx;
        row[c] = ConvertSat<Out>(s0 + (s1 - s0) * qy);
      }
    }
  }

  // ---- uint8 -> uint8 linear: fixed point (warp_rows_hwy.h's WarpRowFixedU8C3) ----
  // Source coordinates in units of 2^-F pixel: fx = ax[x] + bx(y) with ax[x] = Q(m00 (x + 1/2)) and
  // bx(y) = Q(m01 (y + 1/2) + m02 - 1/2), Q(v) = round(v 2^F); fy alike. Against the float path
  // (double coordinates, float weights), each coordinate moves by at most 2^-F pixel and each
  // blended value by at most 255 * 2 * 2^-F = 0.25 (the interpolant changes by at most 255 per pixel
  // of either coordinate), so the output by at most 1. Both tables are monotonic, so in each row the
  // pixels whose four taps are inside, those with some tap inside and the rest are intervals of x.
  // The tables live on the stack, a stripe of kStripe output columns at a time (narrower stripes
  // also keep a rotation's source rows within reach of the TLB; much narrower ones lose the
  // sequential access that the hardware prefetchers follow).
  static constexpr int kF = warp_detail::kWarpFracBits;
  static constexpr int64_t kOne = int64_t{1} << kF;
  static constexpr int64_t kStripe = 1024;

  static int64_t Q(double v) { return static_cast<int64_t>(std::nearbyint(v * static_cast<double>(kOne))); }

  // False (the float path) for a non-finite matrix, or coordinates beyond 2^19 pixels (every table
  // and row value then fits 31 bits).
  bool FixedApplies() const {
    constexpr double kMax = 1 << 19;
    for (const auto& r : m_.m)
      for (double v : r)
        if (!std::isfinite(v)) return false;
    const double w = static_cast<double>(out_.width) + 1, h = static_cast<double>(out_.height) + 1;
    return std::abs(m_.m[0][0]) * w <= kMax && std::abs(m_.m[1][0]) * w <= kMax &&
           std::abs(m_.m[0][1]) * h + std::abs(m_.m[0][2]) + 1 <= kMax &&
           std::abs(m_.m[1][1]) * h + std::abs(m_.m[1][2]) + 1 <= kMax;
  }

  // The first x in [0, n) with pred(x) (false, then true: n if never), searched from `guess`.
  template <typename Pred>
  static int64_t FirstTrue(Pred pred, double guess, int64_t n) {
    int64_t x = guess > 0 ? (guess < static_cast<double>(n) ? static_cast<int64_t>(guess) : n) : 0;  // NaN: 0
    for (int step = 0; step < 4; ++step) {
      if (x > 0 && pred(x - 1)) --x;
      else if (x < n && !pred(x)) ++x;
      else return x;
    }
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (pred(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  // The interval [first, last) of [0, n) where lo <= tab[x] + b < hi; tab[x] = Q(m (x0 + x + 1/2)).
  static std::pair<int64_t, int64_t> Interval(const int32_t* tab, int64_t n, double m, int64_t x0, int64_t b,
                                              int64_t lo, int64_t hi) {
    // tab[x] + b = v near x = (v - b) / (m 2^F) - x0 - 1/2.
    auto guess = [&](int64_t v) {
      return static_cast<double>(v - b) / (m * static_cast<double>(kOne)) - static_cast<double>(x0) - 0.5;
    };
    int64_t a, e;
    if (m >= 0) {  // rising
      a = FirstTrue([&](int64_t x) { return tab[x] + b >= lo; }, guess(lo), n);
      e = FirstTrue([&](int64_t x) { return tab[x] + b >= hi; }, guess(hi), n);
    } else {
      a = FirstTrue([&](int64_t x) { return tab[x] + b < hi; }, guess(hi), n);
      e = FirstTrue([&](int64_t x) { return tab[x] + b < lo; }, guess(lo), n);
    }
    return {a, std::max(a, e)};
  }

  // One output value from the taps' channel values (fill or clamped where outside).
  static uint8_t BlendFixed(int32_t p00, int32_t p01, int32_t p10, int32_t p11, int32_t qx, int32_t qy) {
    const int32_t px = static_cast<int32_t>(kOne) - qx;
    const int32_t h0 = p00 * px + p01 * qx, h1 = p10 * px + p11 * qx;
    return static_cast<uint8_t>(((h0 << kF) + (h1 - h0) * qy + (1 << (2 * kF - 1))) >> (2 * kF));
  }

  void RunFixed() {
    const int c_n = C();
    const int64_t w_out = out_.width;
    const auto fill = static_cast<uint8_t>(fill_in_);
    // The SIMD rows use 32-bit byte offsets and 32-bit coordinates.
    const bool simd = kC == 3 && in_.height * in_.width * 3 < (int64_t{1} << 31) - 64 &&
                      in_.width * kOne < (int64_t{1} << 31) && in_.height * kOne < (int64_t{1} << 31);
    const double m00 = m_.m[0][0], m10 = m_.m[1][0];
    int32_t ax[kStripe], ay[kStripe];
    for (int64_t xs = 0; xs < w_out; xs += kStripe) {
      const int64_t n = std::min(kStripe, w_out - xs);
      for (int64_t k = 0; k < n; ++k) {
        const double cx = static_cast<double>(xs + k) + 0.5;
        ax[k] = static_cast<int32_t>(Q(m00 * cx));
        ay[k] = static_cast<int32_t>(Q(m10 * cx));
      }
      for (int64_t y = 0; y < out_.height; ++y) {
        const double cy = static_cast<double>(y) + 0.5;
        const int64_t bx = Q(m_.m[0][1] * cy + m_.m[0][2] - 0.5), by = Q(m_.m[1][1] * cy + m_.m[1][2] - 0.5);
        Out* row = out_.data + (y * w_out + xs) * c_n;
        // Every tap inside: 0 <= x0 <= w - 2, 0 <= y0 <= h - 2.
        auto [i0, i1] = Interval(ax, n, m00, xs, bx, 0, (in_.width - 1) * kOne);
        const auto iy = Interval(ay, n, m10, xs, by, 0, (in_.height - 1) * kOne);
        i0 = std::max(i0, iy.first);
        i1 = std::max(i0, std::min(i1, iy.second));
        // Some tap inside: -1 <= x0 <= w - 1, -1 <= y0 <= h - 1; beyond, the fill (clamping: all).
        int64_t t0 = 0, t1 = n;
        if (!opt_.clamp) {
          const auto tx = Interval(ax, n, m00, xs, bx, -kOne, in_.width * kOne);
          const auto ty = Interval(ay, n, m10, xs, by, -kOne, in_.height * kOne);
          t0 = std::max(tx.first, ty.first);
          t1 = std::max(t0, std::min(tx.second, ty.second));
        }
        if (i0 == i1) i0 = i1 = t0;  // when not empty, [i0, i1) lies within [t0, t1)
        std::fill(row, row + t0 * c_n, fill);
        RowFixedEdge(row, ax, ay, bx, by, t0, i0);
        int64_t x = i0;
        if (simd && i0 < i1) {
          const warp_detail::WarpRowFixedU8C3 args{in_.data, in_.width, row, i0, i1, ax, ay,
                                                    static_cast<int32_t>(bx), static_cast<int32_t>(by)};
          x += static_cast<int64_t>(warp_detail::WarpLinearFixedRowU8C3(args));
        }
        RowFixedInside(row, ax, ay, bx, by, x, i1);
        RowFixedEdge(row, ax, ay, bx, by, i1, t1);
        std::fill(row + t1 * c_n, row + n * c_n, fill);
      }
    }
  }

  // Stripe pixels [x_begin, x_end) (from `row`, the stripe's first pixel) with every tap inside.
  void RowFixedInside(Out* row, const int32_t* ax, const int32_t* ay, int64_t bx, int64_t by, int64_t x_begin,
                      int64_t x_end) const {
    const int c_n = C();
    const int64_t stride = in_.width * c_n;
    for (int64_t x = x_begin; x < x_end; ++x) {
      const int64_t fx = ax[x] + bx, fy = ay[x] + by;
      const auto qx = static_cast<int32_t>(fx & (kOne - 1)), qy = static_cast<int32_t>(fy & (kOne - 1));
      const In* p00 = Pixel(fx >> kF, fy >> kF);
      const In* p10 = p00 + stride;
      Out* o = row + x * c_n;
      for (int c = 0; c < c_n; ++c) o[c] = BlendFixed(p00[c], p00[c + c_n], p10[c], p10[c + c_n], qx, qy);
    }
  }

  // Stripe pixels [x_begin, x_end) with any taps: the fill or the clamped edge for those outside.
  void RowFixedEdge(Out* row, const int32_t* ax, const int32_t* ay, int64_t bx, int64_t by, int64_t x_begin,
                    int64_t x_end) const {
    const int c_n = C();
    const int32_t f = fill_in_;
    for (int64_t x = x_begin; x < x_end; ++x) {
      const int64_t fx = ax[x] + bx, fy = ay[x] + by;
      const auto qx = static_cast<int32_t>(fx & (kOne - 1)), qy = static_cast<int32_t>(fy & (kOne - 1));
      const int64_t x0 = fx >> kF, y0 = fy >> kF;
      const In *p00 = Tap(x0, y0), *p01 = Tap(x0 + 1, y0), *p10 = Tap(x0, y0 + 1), *p11 = Tap(x0 + 1, y0 + 1);
      Out* o = row + x * c_n;
      for (int c = 0; c < c_n; ++c)
        o[c] = BlendFixed(p00 ? p00[c] : f, p01 ? p01[c] : f, p10 ? p10[c] : f, p11 ? p11[c] : f, qx, qy);
    }
  }

  HwcView<const In> in_;
  HwcView<Out> out_;
  Affine2D m_;
  WarpOptions opt_;
  int channels_;
  In fill_in_{};
};

template <typename In, typename Out>
void Dispatch(HwcView<const In> in, HwcView<Out> out, const Affine2D& m, const WarpOptions& opt) {
  if (in.channels != out.channels)
    throw Error("warp_affine kernel: input has " + std::to_string(in.channels) + " channels, output " +
                std::to_string(out.channels));
  if (in.height < 0 || in.width < 0 || out.height < 0 || out.width < 0 || in.channels < 1)
    throw Error("warp_affine kernel: invalid image extents");
  switch (in.channels) {
    case 1: return Warper<In, Out, 1>(in, out, m, opt).Run();
    case 3: return Warper<In, Out, 3>(in, out, m, opt).Run();
    case 4: return Warper<In, Out, 4>(in, out, m, opt).Run();
    default: return Warper<In, Out, 0>(in, out, m, opt).Run();
  }
}

}  // namespace

void WarpAffine(HwcView<const uint8_t> in, HwcView<uint8_t> out, const Affine2D& m, const WarpOptions& opt) {
  Dispatch(in, out, m, opt);
}
void WarpAffine(HwcView<const uint8_t> in, HwcView<float> out, const Affine2D& m, const WarpOptions& opt) {
  Dispatch(in, out, m, opt);
}
void WarpAffine(HwcView<const float> in, HwcView<float> out, const Affine2D& m, const WarpOptions& opt) {
  Dispatch(in, out, m, opt);
}
void WarpAffine(HwcView<const float> in, HwcView<uint8_t> out, const Affine2D& m, const WarpOptions& opt) {
  Dispatch(in, out, m, opt);
}

}  // namespace sluice::kernels
