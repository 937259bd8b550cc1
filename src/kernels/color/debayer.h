// Demosaicing of a Bayer mosaic, as OpenCV's cv::cvtColor with the COLOR_Bayer** codes (what
// DALI's CPU debayer calls for its algorithms bilinear_ocv, edgeaware_ocv, vng_ocv and gray_ocv;
// DALI 2.4 links OpenCV 5.0, whose VNG and uint8 gray differ from 4.x's), bit for bit on x86-64,
// where OpenCV runs its 128-bit SIMD paths (their rounding is reproduced).
//
// Common to all: `in` is h x w (row-major), blue_position (by, bx) is where blue sits in the 2x2
// tile that starts at the sensor's second row and column (OpenCV's naming: (0,0) BG, (0,1) GB,
// (1,0) GR, (1,1) RG): pixel (y, x) is blue when (y, x) = (1 + by, 1 + bx) mod 2, red when
// (y, x) = (by, bx) mod 2, green otherwise. RGB outputs are h x w x 3 (R, G, B), gray h x w.
// Thread-safety: reentrant. DebayerVng allocates a padded copy of the mosaic and a 3-row gradient
// buffer; the others do not allocate.
// uint8 rows run Highway code (debayer_rows_hwy.h) with the same arithmetic, lane for lane: up to
// 256-bit for bilinear and edge-aware; gray and VNG at the CPU's vector width (gray: one of OpenCV's
// steps per 128-bit block).
//
//  - DebayerBilinear (COLOR_Bayer**2RGB): every pixel not on the border takes its own colour from
//    itself, a colour found at its four orthogonal neighbours as (up + down + left + right + 2) >> 2,
//    at two as (a + b + 1) >> 1, and at its four diagonal neighbours as (sum + 2) >> 2; the first and
//    last columns copy their neighbours, then the first and last rows copy theirs; an image with
//    fewer than 3 rows or columns is all zeros.
//  - DebayerEdgeAware (COLOR_Bayer**2RGB_EA): as bilinear, except green at a red or blue pixel, which
//    averages the vertical pair when |left - right| > |up - down| and the horizontal pair otherwise;
//    same borders; fewer than 3 rows or columns: zeros.
//  - DebayerGray (COLOR_Bayer**2GRAY): gray = (R * 4899 + G * 9617 + B * 1868) / 2^14 of the bilinear
//    colours, in fixed point with the sums taken before the products (at a red or blue pixel the
//    corners, the cross and the centre x4, shifted by 16; at green, the two pairs and the centre x2,
//    shifted by 15; rounded to nearest), everywhere, as OpenCV 5.0. (OpenCV 4.x's uint8 SIMD path
//    truncated each product and differed by 1 level on many pixels; DALI 2.4 has 5.0's.) Borders
//    as bilinear.
//  - DebayerVng (COLOR_Bayer**2RGB_VNG, uint8 only, as OpenCV): variable number of gradients, as
//    OpenCV 5.0. Eight gradients around each pixel (from a 5x5 neighbourhood), threshold
//    T = min + max(max / 2, 1); every direction under T adds its colour sums, and the missing
//    colours are the pixel's own plus round((sum of the other colour - sum of its own) / (2 * count)).
//    OpenCV scales by a table of float reciprocals in its scalar code and by 0.5f / count in its
//    SIMD code (8 pixels at a time from a row's first red-or-blue pixel while 10 columns of the
//    padded row remain), which round differently for a count of 7; DebayerVng uses each where
//    OpenCV does. The mosaic is first padded by 2 on every side (BORDER_REFLECT_101, which keeps the
//    Bayer phase), so every pixel is computed around its own position. (OpenCV 4.x computed only
//    rows 2..h-5 and columns 2..w-3, around the mosaic row two below, and copied the borders.)
//    Images with fewer than 8 rows or columns take OpenCV's fallback: DebayerBilinear, same pattern.
#pragma once
#include <cstdint>

namespace sluice::kernels {

template <typename T>  // uint8_t or uint16_t
void DebayerBilinear(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x);

template <typename T>  // uint8_t or uint16_t
void DebayerEdgeAware(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x);

template <typename T>  // uint8_t or uint16_t
void DebayerGray(const T* in, T* out, int64_t h, int64_t w, int blue_y, int blue_x);

void DebayerVng(const uint8_t* in, uint8_t* out, int64_t h, int64_t w, int blue_y, int blue_x);

}  // namespace sluice::kernels
