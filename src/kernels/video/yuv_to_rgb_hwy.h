// Internal to kernels/video/yuv_to_rgb.cc: one output row of DaliYuvConverter's vertical chroma
// pass fused with the output, vectorized with Highway (dynamic dispatch). The lanes carry the scalar
// loop's integer arithmetic exactly: the same 32-bit sums, the same shifts, and the RGB matrix's
// products in wrapping uint32 (libswscale's unsigned arithmetic, whose wrap-around turns a few
// saturated pixels black in blue), then av_clip_uintp2(, 30) per channel -- which equals
// libswscale's "clip all three when any is out of range", clipping an in-range value being the
// identity. Bit-identical to the scalar path (tests/kernels/yuv_to_rgb_test.cc checks every target).
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels::video_detail {

// libswscale's fixed-point BT.601 terms (yuv_to_rgb.cc's RgbCoeffs).
struct YuvRowCoeffs {
  int32_t y, y_offset, v2r, v2g, u2g, u2b;
};

// Pixels [0, k) of one row, k the largest multiple of the vector width <= n, returned: luma
// `luma`, chroma sums u = cb0 * t0 + cb1 * t1 and v = cr0 * t0 + cr1 * t1 (15-bit lines, 12-bit
// taps), written to `out` as packed RGB (ycbcr: Y, Cb, Cr). The caller converts pixels [k, n).
size_t YuvRowTwoTap(const uint8_t* luma, const int16_t* cb0, const int16_t* cb1, const int16_t* cr0,
                    const int16_t* cr1, int t0, int t1, size_t n, const YuvRowCoeffs& c, bool ycbcr,
                    uint8_t* out);

// Pixels [0, k) of one horizontally upsampled chroma line, k as above, returned: out[x] =
// min((wide[p0[x]] * c0[x] + wide[p1[x]] * c1[x]) >> 7, 32767) (hScale8To15 with two 14-bit taps),
// `wide` the 8-bit chroma line widened to int32, `wide_len` its readable length. The caller converts
// [k, n). `sorted`: p0 and p1 are non-decreasing, p0[i] <= p1[i]; then a vector whose taps lie
// within one vector's width of its first is permuted from one load instead of gathered.
size_t ChromaRowTwoTap(const int32_t* wide, size_t wide_len, const int* p0, const int* p1, const int* c0,
                       const int* c1, bool sorted, size_t n, int16_t* out);
// wide[i] = src[i] for i < n.
void WidenRow(const uint8_t* src, size_t n, int32_t* wide);

}  // namespace sluice::kernels::video_detail
