// Bilinear demosaicing of a Bayer mosaic into RGB, as OpenCV's cv::cvtColor(COLOR_Bayer**2RGB)
// (what DALI's CPU debayer calls for algorithm "bilinear_ocv"), bit for bit:
//  - blue_position (by, bx) is where blue sits in the 2x2 tile that starts at the sensor's second
//    row and column (OpenCV's naming: (0,0) BG, (0,1) GB, (1,0) GR, (1,1) RG): pixel (y, x) is blue
//    when (y, x) = (1 + by, 1 + bx) mod 2, red when (y, x) = (by, bx) mod 2, green otherwise;
//  - every pixel not on the border takes its own colour from itself, a colour found at its four
//    orthogonal neighbours as (up + down + left + right + 2) >> 2, at two as (a + b + 1) >> 1, and at
//    its four diagonal neighbours as (sum + 2) >> 2;
//  - the first and last columns copy their neighbours, then the first and last rows copy theirs; an
//    image with fewer than 3 rows or columns is all zeros (OpenCV's results).
// Thread-safety: reentrant, no allocation.
#pragma once
#include <cstdint>

namespace sluice::kernels {

template <typename T>  // uint8_t or uint16_t
void DebayerBilinear(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x);

}  // namespace sluice::kernels
