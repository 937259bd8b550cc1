// Internal: Highway rows of ConvertColorSpace for uint8 RGB/BGR -> GRAY and -> YCbCr. The same
// float32 expressions as color_space.cc's scalar loop, evaluated in the same order (multiplies and
// adds never fused), and the same conversion (round to nearest even, saturate): bit-identical.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::color_detail {

// `pixels` interleaved RGB (bgr: BGR) pixels -> one gray value each.
void RgbToGrayU8(const uint8_t* in, uint8_t* out, size_t pixels, bool bgr);
// `pixels` interleaved RGB (bgr: BGR) pixels -> interleaved Y, Cb, Cr (BT.601 studio range).
void RgbToYCbCrU8(const uint8_t* in, uint8_t* out, size_t pixels, bool bgr);

}  // namespace sluice::kernels::color_detail
