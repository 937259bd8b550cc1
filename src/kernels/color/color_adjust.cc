#include "kernels/color/color_adjust.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "kernels/color/color_affine_hwy.h"
#include "kernels/color/color_matrix_hwy.h"
#include "kernels/tensor/byte_table.h"
#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

using Mat3 = std::array<std::array<double, 3>, 3>;

Mat3 Mul(const Mat3& a, const Mat3& b) {
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[i][j] += a[i][k] * b[k][j];
  return r;
}

Mat3 Inverse(const Mat3& a) {
  const double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  Mat3 r;
  r[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det;
  r[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det;
  r[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det;
  r[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det;
  r[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det;
  r[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det;
  r[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det;
  r[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det;
  r[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det;
  return r;
}

// DALI's RGB -> YIQ matrix (color_twist.h); its inverse is computed, as DALI's current code does
// (older releases used a rounded, precomputed inverse).
constexpr Mat3 kRgb2Yiq = {{{.299, .587, .114}, {.596, -.274, -.321}, {.211, -.523, .311}}};

template <typename T>
inline float ToFloat(T v) {
  if constexpr (std::is_same_v<T, float16>) return static_cast<float>(v);
  else return static_cast<float>(v);
}

template <typename Out>
inline Out FromFloat(float v) {
  if constexpr (std::is_same_v<Out, float>) return v;
  else return ConvertSaturate<Out>(v);
}

// Calls fn(In{}, Out{}) for the supported pairs.
template <typename Fn>
void VisitPair(DType in_type, DType out_type, Fn&& fn) {
  if (!ColorKernelSupports(in_type) || !ColorKernelSupports(out_type))
    throw Error("colour kernels take uint8, int16, int32, float16 or float32, got " + std::string(ToString(in_type)) +
                " -> " + std::string(ToString(out_type)));
  VisitDType(in_type, [&](auto in_tag) {
    VisitDType(out_type, [&](auto out_tag) {
      using In = decltype(in_tag);
      using Out = decltype(out_tag);
      if constexpr ((std::is_same_v<In, uint8_t> || std::is_same_v<In, int16_t> || std::is_same_v<In, int32_t> ||
                     std::is_same_v<In, float16> || std::is_same_v<In, float>) &&
                    (std::is_same_v<Out, uint8_t> || std::is_same_v<Out, int16_t> || std::is_same_v<Out, int32_t> ||
                     std::is_same_v<Out, float16> || std::is_same_v<Out, float>))
        fn(in_tag, out_tag);
    });
  });
}

}  // namespace

bool ColorKernelSupports(DType t) {
  return t == DType::kUInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kFloat16 ||
         t == DType::kFloat32;
}

double ColorFullRange(DType t) {
  if (IsFloating(t)) return 1.0;
  double r = 0;
  VisitDType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T>) r = static_cast<double>(std::numeric_limits<T>::max());
  });
  return r;
}

double ColorHalfRange(DType t) {
  if (IsFloating(t)) return 0.5;
  double r = 0;
  VisitDType(t, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      r = std::ldexp(1.0, static_cast<int>(8 * sizeof(T)) - (std::is_signed_v<T> ? 1 : 0) - 1);
  });
  return r;
}

AffineCoeffs BrightnessContrastCoeffs(double brightness, double brightness_shift, double contrast,
                                      double contrast_center, DType out_type) {
  AffineCoeffs k;
  k.mul = static_cast<float>(brightness * contrast);
  k.add = static_cast<float>(brightness_shift * ColorFullRange(out_type) +
                             brightness * (contrast_center - contrast * contrast_center));
  return k;
}

ColorTransform ColorTwistTransform(double hue_degrees, double saturation, double value, double brightness,
                                   double contrast, double half_range) {
  const double h = hue_degrees * std::numbers::pi / 180.0;
  const double c = std::cos(h), s = std::sin(h);
  // Hue(h) * Sat(saturation) * value, in YIQ: Y is scaled by value only; I and Q are rotated and
  // scaled by saturation * value (DALI: hue_mat * sat_mat * mat3(value)).
  const Mat3 hsv = {{{value, 0, 0}, {0, c * saturation * value, s * saturation * value},
                     {0, -s * saturation * value, c * saturation * value}}};
  const Mat3 m = Mul(Inverse(kRgb2Yiq), Mul(hsv, kRgb2Yiq));
  ColorTransform t;
  const double bc = brightness * contrast;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) t.m[i][j] = static_cast<float>(bc * m[i][j]);
    t.offset[i] = static_cast<float>((half_range - half_range * contrast) * brightness);
  }
  return t;
}

void ColorAffine(const void* in, DType in_type, void* out, DType out_type, size_t n, AffineCoeffs k) {
  VisitPair(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    const In* src = static_cast<const In*>(in);
    Out* dst = static_cast<Out*>(out);
    if constexpr (std::is_same_v<In, uint8_t>) {
      // Fast path: every uint8 value once, then a table lookup per element.
      Out lut[256];
      for (int v = 0; v < 256; ++v) lut[v] = FromFloat<Out>(static_cast<float>(v) * k.mul + k.add);
      if constexpr (std::is_same_v<Out, uint8_t>) {
        // Faster still: the SIMD affine map, where it gives the table's 256 values exactly (it
        // computes the same float operations; the check makes that a fact, not an assumption).
        if (n >= 1024) {
          uint8_t domain[256], simd[256];
          for (int v = 0; v < 256; ++v) domain[v] = static_cast<uint8_t>(v);
          color_detail::AffineU8(domain, simd, 256, k.mul, k.add);
          if (std::equal(simd, simd + 256, lut)) {
            color_detail::AffineU8(src, dst, n, k.mul, k.add);
            return;
          }
        }
      }
      if constexpr (std::is_same_v<Out, uint8_t>) MapBytes(src, lut, dst, n);
      else
        for (size_t i = 0; i < n; ++i) dst[i] = lut[src[i]];
    } else {
      for (size_t i = 0; i < n; ++i) dst[i] = FromFloat<Out>(ToFloat(src[i]) * k.mul + k.add);
    }
  });
}

void ColorMatrix3(const void* in, DType in_type, void* out, DType out_type, size_t pixels, const ColorTransform& t) {
  if (in_type == DType::kUInt8 && out_type == DType::kUInt8) {
    color_detail::MatrixRowU8(static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), pixels, &t.m[0][0],
                              t.offset);
    return;
  }
  VisitPair(in_type, out_type, [&](auto in_tag, auto out_tag) {
    using In = decltype(in_tag);
    using Out = decltype(out_tag);
    const In* src = static_cast<const In*>(in);
    Out* dst = static_cast<Out*>(out);
    for (size_t p = 0; p < pixels; ++p, src += 3, dst += 3) {
      const float r = ToFloat(src[0]), g = ToFloat(src[1]), b = ToFloat(src[2]);
      for (int c = 0; c < 3; ++c)
        dst[c] = FromFloat<Out>(r * t.m[c][0] + g * t.m[c][1] + b * t.m[c][2] + t.offset[c]);
    }
  });
}

}  // namespace sluice::kernels
