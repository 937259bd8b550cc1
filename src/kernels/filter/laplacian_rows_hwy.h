// Internal: Highway rows of Laplacian2D (laplacian.cc). Every window is symmetric about its centre,
// so the taps at distance d on either side are added first and multiplied once (by the weight at
// distance d; windows shorter than the radius have weight 0 there and skip it). Contraction into
// FMA is off in the .cc, so a sum is the same on every SIMD target and equals the scalar tail's.
#pragma once
#include <cstdint>

namespace sluice::kernels::filter_detail {

// The two horizontal passes over one padded row, `c` pointing at the centre tap of element 0 (the
// row extends r * step elements on either side; step = the channel count of an interleaved row):
//   hs[e] = ws[0] * c[e] + sum_{d=1..r, ws[d] != 0} ws[d] * (c[e - d * step] + c[e + d * step]),
// hd likewise with wd, for e < n.
void LaplacianRowPass(const float* c, int64_t n, int64_t step, int r, const float* ws, const float* wd, float* hs,
                      float* hd);

// One output row from 2 * r + 1 rows of each horizontal result (ra[r], rb[r] the centre rows):
//   acc = (a[0] * ra[r] + sum_d a[d] * (ra[r - d] + ra[r + d])) + (the same with b and rb),
// stored as float into acc, or, where out8 is not null, converted to uint8 (NaN -> 0, round to
// nearest even, saturate) into out8 instead.
void LaplacianColumnPass(const float* const* ra, const float* a, const float* const* rb, const float* b, int r,
                         int64_t n, float* acc, uint8_t* out8);

// The same two passes in int16 (exact: the caller checks that every weight is an integer and that
// no sum can leave the int16 range), for uint8 images; the column pass stores int16 into out16 or,
// where out8 is not null, saturates to uint8 into out8 instead.
void LaplacianRowPassI16(const int16_t* c, int64_t n, int64_t step, int r, const int16_t* ws, const int16_t* wd,
                         int16_t* hs, int16_t* hd);
void LaplacianColumnPassI16(const int16_t* const* ra, const int16_t* a, const int16_t* const* rb, const int16_t* b,
                            int r, int64_t n, int16_t* out16, uint8_t* out8);

}  // namespace sluice::kernels::filter_detail
