// 8-bit sRGB <-> CIE L*a*b* (D65 white) exactly as OpenCV's cv::cvtColor with COLOR_RGB2Lab and
// COLOR_Lab2RGB on CV_8UC3 images (what DALI's CPU clahe converts through for luma_only on RGB):
// OpenCV's fixed-point paths, whose tables are rebuilt here from OpenCV's own formulas (its sRGB
// gamma table scaled by 8, its cube-root table and the truncated rational cube root it fills it
// with, its L -> (y, f(y)) and f -> x/z tables, its 2^12-scaled matrices), so both directions are
// bit-exact with OpenCV 4.6 to 5.0 (checked over all 2^24 inputs of each direction against cv2).
// Encoding: L in 0..255 is L* * 255 / 100; a and b are a* + 128 and b* + 128, saturated.
// Thread-safety: reentrant; the tables are built once, on first use (a function-local static).
#pragma once
#include <cstdint>

namespace sluice::kernels {

// `n` RGB pixels (3 bytes each, R first) to `n` Lab pixels. in == out is allowed.
void RgbToLab8(const uint8_t* rgb, uint8_t* lab, int64_t n);

// `n` Lab pixels to `n` RGB pixels (R first). in == out is allowed.
void Lab8ToRgb(const uint8_t* lab, uint8_t* rgb, int64_t n);

}  // namespace sluice::kernels
