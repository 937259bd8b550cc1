// Point-wise colour adjustments of DALI's brightness/contrast and hsv/hue/saturation/color_twist
// families, as two kernels:
//   - ColorAffine: out = in * mul + add, element-wise (any number of channels);
//   - ColorMatrix3: out = M * in + offset per pixel of 3 interleaved channels (RGB).
// Both compute in float32, in DALI's order of operations (no fused multiply-add), and convert the
// result to the output type as DALI's CPU ConvertSat does: integer outputs are rounded to nearest,
// ties away from zero (as kernels::Cast), and saturated, NaN -> 0; float outputs are stored as
// computed. uint8 results equal DALI 2.4's CPU operators bit for bit (python/tests/dali_goldens). uint8 inputs take fast paths (a 256-entry table for the
// affine map, Highway SIMD for the uint8 -> uint8 matrix).
// Supported element types (in and out): uint8, int16, int32, float16, float32.
// Thread-safety: reentrant; ColorAffine allocates nothing, ColorMatrix3 nothing.
// `in` and `out` must not overlap.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels {

// The coefficients of one colour transform: out_c = sum_k m[c][k] * in_k + offset[c].
struct ColorTransform {
  float m[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  float offset[3] = {0, 0, 0};
};

// DALI's brightness_contrast ranges (operators/image/color/brightness_contrast.h):
// FullRange: the maximum of an integer type, 1 for floating point (what brightness_shift = 1 means);
// HalfRange: 1 << (bits - signed - 1) for integers (128 for uint8, 16384 for int16), 0.5 for
// floating point (the default contrast_center).
double ColorFullRange(DType t);
double ColorHalfRange(DType t);

// DALI's brightness_contrast formula
//   out = brightness_shift * FullRange(out_type) + brightness * (center + contrast * (in - center))
// rearranged as out = in * mul + add, with mul = brightness * contrast and
// add = brightness_shift * FullRange(out_type) + brightness * (center - contrast * center), each in
// float32 as DALI computes them.
struct AffineCoeffs {
  float mul = 1, add = 0;
};
AffineCoeffs BrightnessContrastCoeffs(double brightness, double brightness_shift, double contrast,
                                      double contrast_center, DType out_type);

// DALI's colour-twist matrix (operators/image/color/color_twist.h, ColorTwistBase):
//   M = brightness * contrast * inverse(Rgb2Yiq) * Hue(hue) * Sat(saturation) * value * Rgb2Yiq
//   offset = (half_range - half_range * contrast) * brightness, the same for every channel
// with Rgb2Yiq = [[.299, .587, .114], [.596, -.274, -.321], [.211, -.523, .311]], Hue(h) the
// rotation of the I/Q plane by h degrees (rows 1 and 2: [cos, sin], [-sin, cos]) and Sat(s) a
// scaling of I and Q by s. half_range is 0.5 for floating-point inputs and 128 for every integer
// type (DALI's choice). hsv: brightness = contrast = 1; hue/saturation: the others neutral. All in
// float32 as DALI: the product left to right, with inverse(Rgb2Yiq) as DALI's float32 build has it.
ColorTransform ColorTwistTransform(double hue_degrees, double saturation, double value, double brightness,
                                   double contrast, double half_range);

// out[i] = convert(in[i] * mul + add) for n elements.
void ColorAffine(const void* in, DType in_type, void* out, DType out_type, size_t n, AffineCoeffs k);

// out pixel = convert(M * in pixel + offset) for `pixels` pixels of 3 interleaved channels.
void ColorMatrix3(const void* in, DType in_type, void* out, DType out_type, size_t pixels, const ColorTransform& t);

// True if ColorAffine/ColorMatrix3 take `t` as input or output type.
bool ColorKernelSupports(DType t);

}  // namespace sluice::kernels
