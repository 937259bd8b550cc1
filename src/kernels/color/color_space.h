// Colour-space conversion of interleaved pixels between RGB, BGR, YCbCr and GRAY, with DALI's
// formulas (dali/kernels/imgproc/color_manipulation/color_space_conversion_impl.h):
//   - GRAY from RGB: JPEG luma, Y = 0.299 R + 0.587 G + 0.114 B (full range);
//   - YCbCr: ITU-R BT.601 "studio" range (Y in 16..235, Cb/Cr in 16..240 for uint8):
//       Y  =  0.25678823529 R + 0.50412941176 G + 0.09790588235 B + 16
//       Cb = -0.14822289945 R - 0.29099278682 G + 0.43921568627 B + 128
//       Cr =  0.43921568627 R - 0.36778831435 G - 0.07142737192 B + 128
//     and back: Y' = (Y - 16) * 255 / 219,
//       R = Y' + 1.5960267848 (Cr - 128), G = Y' - 0.39176228842 (Cb - 128) - 0.81296764538 (Cr - 128),
//       B = Y' + 2.0172321417 (Cb - 128);
//     GRAY <-> Y: Y = GRAY * 219 / 255 + 16, GRAY = (Y - 16) * 255 / 219; GRAY -> YCbCr has
//     Cb = Cr = 128; GRAY -> RGB/BGR replicates the value.
// float32 data are normalized values (0..1): the offsets 16 and 128 become 16/256 = 0.0625 and 0.5
// (DALI's bias_scale), and results are not clamped. uint8 results are rounded to nearest and
// saturated. Computation in float32, as DALI.
// Thread-safety: reentrant, allocates nothing. `in` and `out` must not overlap.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "sluice/dtype.h"

namespace sluice::kernels {

enum class ColorSpace { kRGB, kBGR, kYCbCr, kGray };

// 3 for RGB, BGR and YCbCr; 1 for GRAY.
int ColorSpaceChannels(ColorSpace cs);
// DALI's spellings: "RGB", "BGR", "YCbCr", "GRAY".
const char* ColorSpaceName(ColorSpace cs);
std::optional<ColorSpace> ParseColorSpace(const std::string& name);

// True if ConvertColorSpace takes `t` (uint8 or float32; the output has the input's type).
bool ColorSpaceKernelSupports(DType t);

// Converts `pixels` interleaved pixels of `from` (ColorSpaceChannels(from) values each) to `to`.
void ConvertColorSpace(const void* in, ColorSpace from, void* out, ColorSpace to, DType type, size_t pixels);

}  // namespace sluice::kernels
