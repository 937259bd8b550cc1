// Internal: the sampler shared by warp_perspective.cc and remap.cc: output pixel (x, y) takes the
// input at the point coord(x, y) gives (OpenCV's convention: pixel centres at integers), with the
// interpolation, border and fill of kernels/warp/warp_perspective.h (nearest: floor(s + 0.5);
// linear: 2x2 taps, float32 weights; cubic: 4x4 taps, Keys a = -0.75), integer outputs rounded to
// nearest even and saturated; a non-finite or huge point gives the fill. Header-only templates.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/dtype_list.h"
#include "kernels/filter/convolution.h"
#include "kernels/warp/warp_perspective.h"
#include "sluice/dtype.h"
#include "sluice/error.h"

namespace sluice::kernels::warp_detail {


// floor without a libm call (baseline x86-64 has no rounding instruction); |v| < 2^62.
inline int64_t FloorI(double v) {
  const auto i = static_cast<int64_t>(v);
  return i - (v < static_cast<double>(i) ? 1 : 0);
}

// RoundSat<T>(v) (round to nearest even, saturate; NaN -> 0) without a libm call: after
// clamping one step outside T's range, adding and subtracting 1.5 * 2^23 rounds as rint does.
template <typename T>
inline T RoundSat(float v) {
  if constexpr (std::is_same_v<T, float>) {
    return v;
  } else {
    constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
    v = v == v ? v : 0.f;
    v = v < lo - 1 ? lo - 1 : (v > hi + 1 ? hi + 1 : v);
    constexpr float magic = 12582912.0f;  // IEEE arithmetic: (v + M) - M is not folded to v
    v = (v + magic) - magic;
    return static_cast<T>(v < lo ? lo : (v > hi ? hi : v));
  }
}

inline void CubicWeights(float x, float w[4]) {
  constexpr float A = -0.75f;
  w[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  w[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  w[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  w[3] = 1.f - w[0] - w[1] - w[2];
}

// One output pixel at a time: Pixel(sx, sy, o) writes the channels of output pixel `o` sampled at
// input point (sx, sy). kC: the channel count when known at compile time (1, 3, 4; 0:
// og.channels), so that the inner loops over channels unroll. Reads only `in` (and its own fill);
// one object per thread (it keeps a scratch accumulator when kC == 0).
template <typename T, PerspectiveInterp kInterp, int kC>
class PointSampler {
 public:
  PointSampler(const T* in, const ImageGeom& ig, const ImageGeom& og, BorderMode border,
               const std::vector<float>& fill_in)
      : in_(in), C_(kC ? kC : og.channels), H_(ig.height), W_(ig.width), isy_(ig.stride_y), isx_(ig.stride_x),
        isc_(ig.stride_c), osc_(og.stride_c), border_(border), fill_(static_cast<size_t>(C_), 0.f),
        acc_v_(static_cast<size_t>(C_)) {
    for (int64_t c = 0; c < C_; ++c)
      if (!fill_in.empty()) fill_[size_t(c)] = fill_in[fill_in.size() == 1 ? 0 : size_t(c)];
  }

  // The fill of channel c (kConstant), as the output type.
  T Fill(int64_t c) const { return RoundSat<T>(fill_[size_t(c)]); }

  void Pixel(double sx, double sy, T* o) const {
    // Locals, not members: a uint8 store may alias anything, and the compiler would reload every
    // member after each one.
    const int64_t C = kC ? kC : C_, H = H_, W = W_, isy = isy_, isx = isx_, isc = isc_, osc = osc_;
    const T* in = in_;
    const float* fill = fill_.data();
    if (!std::isfinite(sx) || !std::isfinite(sy) || std::fabs(sx) > 1e9 || std::fabs(sy) > 1e9) {
      for (int64_t c = 0; c < C; ++c) o[c * osc] = RoundSat<T>(fill[c]);
      return;
    }
    if constexpr (kInterp == PerspectiveInterp::kNearest) {
      const int64_t ix = FloorI(sx + 0.5), iy = FloorI(sy + 0.5);
      const int64_t py = (iy >= 0 && iy < H) ? iy : BorderIndex(iy, H, border_);
      const int64_t pxi = (ix >= 0 && ix < W) ? ix : BorderIndex(ix, W, border_);
      if (py < 0 || pxi < 0) {
        for (int64_t c = 0; c < C; ++c) o[c * osc] = RoundSat<T>(fill[c]);
      } else {
        const T* s = in + py * isy + pxi * isx;
        for (int64_t c = 0; c < C; ++c) o[c * osc] = s[c * isc];
      }
    } else {
      float acc_fixed[kC > 0 ? kC : 1];
      float* acc = kC ? acc_fixed : acc_v_.data();
      // A tap: the pixel's channels, or the fill where the border mode gives no pixel.
      auto tap = [&](int64_t y, int64_t x, float w) {
        const int64_t ty = (y >= 0 && y < H) ? y : BorderIndex(y, H, border_);
        const int64_t tx = (x >= 0 && x < W) ? x : BorderIndex(x, W, border_);
        if (ty < 0 || tx < 0) {
          for (int64_t c = 0; c < C; ++c) acc[c] += w * fill[c];
          return;
        }
        const T* px = in + ty * isy + tx * isx;
        for (int64_t c = 0; c < C; ++c) acc[c] += w * static_cast<float>(px[c * isc]);
      };
      const int64_t x0 = FloorI(sx), y0 = FloorI(sy);
      const auto fx = static_cast<float>(sx - double(x0)), fy = static_cast<float>(sy - double(y0));
      std::fill(acc, acc + C, 0.f);
      if constexpr (kInterp == PerspectiveInterp::kLinear) {
        if (x0 >= 0 && y0 >= 0 && x0 + 1 < W && y0 + 1 < H) {
          const T* a = in + y0 * isy + x0 * isx;
          const T* b = a + isy;
          for (int64_t c = 0; c < C; ++c) {
            const int64_t k = c * isc;
            const float top = float(a[k]) + fx * (float(a[k + isx]) - float(a[k]));
            const float bot = float(b[k]) + fx * (float(b[k + isx]) - float(b[k]));
            acc[c] = top + fy * (bot - top);
          }
        } else {
          tap(y0, x0, (1 - fx) * (1 - fy));
          tap(y0, x0 + 1, fx * (1 - fy));
          tap(y0 + 1, x0, (1 - fx) * fy);
          tap(y0 + 1, x0 + 1, fx * fy);
        }
      } else {
        float wx[4], wy[4];
        CubicWeights(fx, wx);
        CubicWeights(fy, wy);
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j) tap(y0 - 1 + i, x0 - 1 + j, wy[i] * wx[j]);
      }
      for (int64_t c = 0; c < C; ++c) o[c * osc] = RoundSat<T>(acc[c]);
    }
  }

 private:
  const T* in_;
  int64_t C_, H_, W_, isy_, isx_, isc_, osc_;
  BorderMode border_;
  std::vector<float> fill_;
  mutable std::vector<float> acc_v_;  // kC == 0 only
};

// Every output pixel: coord(x, y, &sx, &sy) gives output pixel (x, y)'s input point.
template <typename T, PerspectiveInterp kInterp, int kC, typename CoordFn>
void SampleTyped(const T* in, const ImageGeom& ig, T* out, const ImageGeom& og, BorderMode border,
                 const std::vector<float>& fill, const CoordFn& coord) {
  const PointSampler<T, kInterp, kC> sampler(in, ig, og, border, fill);
  const int64_t osy = og.stride_y, osx = og.stride_x, oh = og.height, ow = og.width;
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow; ++x) {
      double sx, sy;
      coord(x, y, &sx, &sy);
      sampler.Pixel(sx, sy, out + y * osy + x * osx);
    }
  }
}

// Runs SampleTyped for the image type, interpolation and channel count.
template <typename CoordFn>
void SampleImage(const void* in, const ImageGeom& ig, void* out, const ImageGeom& og, DType type,
                 PerspectiveInterp interp, BorderMode border, const std::vector<float>& fill, const CoordFn& coord) {
  if (og.height <= 0 || og.width <= 0 || og.channels <= 0) return;
  if (ig.channels != og.channels) throw Error("input and output channel counts differ");
  if (ig.height <= 0 || ig.width <= 0) throw Error("empty input image");
  VisitDTypeIn<FilterDTypes>(type, "warp_perspective", [&](auto z) {
    using T = decltype(z);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    auto by_channels = [&](auto ic) {
      constexpr PerspectiveInterp kI = decltype(ic)::value;
      switch (og.channels) {
        case 1: return SampleTyped<T, kI, 1>(src, ig, dst, og, border, fill, coord);
        case 3: return SampleTyped<T, kI, 3>(src, ig, dst, og, border, fill, coord);
        case 4: return SampleTyped<T, kI, 4>(src, ig, dst, og, border, fill, coord);
        default: return SampleTyped<T, kI, 0>(src, ig, dst, og, border, fill, coord);
      }
    };
    switch (interp) {
      case PerspectiveInterp::kNearest:
        return by_channels(std::integral_constant<PerspectiveInterp, PerspectiveInterp::kNearest>{});
      case PerspectiveInterp::kLinear:
        return by_channels(std::integral_constant<PerspectiveInterp, PerspectiveInterp::kLinear>{});
      case PerspectiveInterp::kCubic:
        return by_channels(std::integral_constant<PerspectiveInterp, PerspectiveInterp::kCubic>{});
    }
  });
}

}  // namespace sluice::kernels::warp_detail
