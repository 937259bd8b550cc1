// Internal: Highway rows of Laplacian2D (laplacian.cc). Contraction into FMA is off in the .cc, so a
// sum is the same on every SIMD target and equals the scalar tail's.
#pragma once
#include <cstdint>

namespace sluice::kernels::filter_detail {

// The two horizontal passes over one padded row `p` (n + (k - 1) * step elements, step = the
// channel count of an interleaved row): hs[e] = sum_j ws[j] * p[e + (off_s + j) * step] and
// hd[e] = sum_j wd[j] * p[e + (off_d + j) * step], taps added left to right from 0.
void LaplacianRowPass(const float* p, int64_t n, int64_t step, const float* ws, int ks, int off_s, const float* wd,
                      int kd, int off_d, float* hs, float* hd);

// One output row: acc = (sum_i a[i] * ra[i][e]) + (sum_i b[i] * rb[i][e]) (each sum from 0, top
// to bottom), stored as float into acc, or, where out8 is not null, converted to uint8 (NaN -> 0,
// round to nearest even, saturate) into out8 instead.
void LaplacianColumnPass(const float* const* ra, const float* a, int ka, const float* const* rb, const float* b,
                         int kb, int64_t n, float* acc, uint8_t* out8);

}  // namespace sluice::kernels::filter_detail
