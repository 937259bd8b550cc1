#include "kernels/color/color_adjust.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
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

using Mat3f = std::array<std::array<float, 3>, 3>;

// DALI's mat3 product in float32: each element the dot product of a row and a column, left to
// right, every operation rounded on its own (volatile keeps the compiler from fusing them).
Mat3f Mul(const Mat3f& a, const Mat3f& b) {
  Mat3f r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      volatile float sum = a[i][0] * b[0][j];
      sum = sum + a[i][1] * b[1][j];
      sum = sum + a[i][2] * b[2][j];
      r[i][j] = sum;
    }
  return r;
}

Mat3f Diagonal(float v) { return {{{v, 0, 0}, {0, v, 0}, {0, 0, v}}}; }

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// DALI's RGB -> YIQ matrix (color_twist.h) and its inverse as DALI computes it (inverse(Rgb2Yiq) in
// float32): the bits of DALI 2.4's matrix, recovered from its CPU operator's outputs for unit inputs
// (they differ from the double-precision inverse, rounded, by an ulp in four elements, which moves
// results by a level where a value is near .5).
const Mat3f kRgb2Yiq = {{{.299f, .587f, .114f}, {.596f, -.274f, -.321f}, {.211f, -.523f, .311f}}};
const Mat3f kYiq2Rgb = {{{FromBits(1065347585u), FromBits(1064624098u), FromBits(1058992331u)},
                         {FromBits(1065346922u), FromBits(3196807055u), FromBits(3206922078u)},
                         {FromBits(1065376807u), FromBits(3213733170u), FromBits(1071270587u)}}};

template <typename T>
inline float ToFloat(T v) {
  if constexpr (std::is_same_v<T, float16>) return static_cast<float>(v);
  else return static_cast<float>(v);
}

// DALI's CPU ConvertSat: integers round to nearest with ties away from zero and saturate.
template <typename Out>
inline Out FromFloat(float v) {
  if constexpr (std::is_same_v<Out, float>) return v;
  else return CastValue<Out>(v);
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
  // In float, in DALI's order (BrightnessContrastOp::OpArgsToKernelArgs; the input range is folded
  // in by the caller through `brightness`).
  const float b = static_cast<float>(brightness), shift = static_cast<float>(brightness_shift);
  const float c = static_cast<float>(contrast), center = static_cast<float>(contrast_center);
  const float range = static_cast<float>(ColorFullRange(out_type));
  volatile float scaled_center = c * center;
  volatile float shift_term = shift * range;
  AffineCoeffs k;
  k.mul = b * c;
  k.add = shift_term + b * (center - scaled_center);
  return k;
}

ColorTransform ColorTwistTransform(double hue_degrees, double saturation, double value, double brightness,
                                   double contrast, double half_range) {
  // DALI's ColorTwistBase::DetermineTransformation, in float32 and in its order:
  //   mat3(brightness) * mat3(contrast) * Yiq2Rgb * hue_mat * sat_mat * mat3(value) * Rgb2Yiq,
  // multiplied left to right; hue_mat's angle is float(hue * M_PI / 180), its cos and sin taken in
  // double and stored as float.
  const float b = static_cast<float>(brightness), c = static_cast<float>(contrast);
  const float h_rad = static_cast<float>(static_cast<double>(static_cast<float>(hue_degrees)) * std::numbers::pi / 180);
  const float cosh = static_cast<float>(std::cos(static_cast<double>(h_rad)));
  const float sinh = static_cast<float>(std::sin(static_cast<double>(h_rad)));
  const Mat3f hue = {{{1, 0, 0}, {0, cosh, sinh}, {0, -sinh, cosh}}};
  const float s = static_cast<float>(saturation);
  const Mat3f sat = {{{1, 0, 0}, {0, s, 0}, {0, 0, s}}};
  const Mat3f m = Mul(Mul(Mul(Mul(Mul(Mul(Diagonal(b), Diagonal(c)), kYiq2Rgb), hue), sat),
                          Diagonal(static_cast<float>(value))),
                      kRgb2Yiq);
  const float hr = static_cast<float>(half_range);
  volatile float scaled = hr * c;
  const float offset = (hr - scaled) * b;
  ColorTransform t;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) t.m[i][j] = m[i][j];
    t.offset[i] = offset;
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
      for (int c = 0; c < 3; ++c) {  // DALI's order, as color_matrix_hwy.h
        volatile float dot = r * t.m[c][0];
        dot = dot + g * t.m[c][1];
        dot = dot + b * t.m[c][2];
        dst[c] = FromFloat<Out>(dot + t.offset[c]);
      }
    }
  });
}

}  // namespace sluice::kernels
