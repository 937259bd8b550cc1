// Internal: Highway (dynamic dispatch) rows of the uint8 bilinear and edge-aware demosaicing
// (debayer.cc, debayer_edge_aware.cc). Exact: the same integer formulas, 16 or 32 pairs at a time.
#pragma once
#include <cstdint>

namespace sluice::kernels::debayer_detail {

// Pairs (red-or-blue pixel at x, green at x + 1) for x = x0 + 2k, k < pairs, of one row; `own` is
// the output channel of the row's red-or-blue colour (0 or 2). Reads up/mid/down at x - 1 .. x + 2,
// writes row[3x .. 3x + 5]. Handles whole groups of 32, then 16, pairs and returns how many it did
// (the caller does the rest).
int64_t DebayerPairsU8(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* row, int64_t x0,
                       int64_t pairs, int own, bool edge_aware);

// Bayer-to-gray in OpenCV's steps of 14 output pixels from the three rows' column 0 (up, mid, down
// point at the top-left neighbour of dst[0]), with the scalar formulas exactly (as OpenCV 5's SIMD
// code); each step reads 16 bytes of each row and writes 16 bytes of dst (the last 2 are rewritten
// by the next step or by the caller); a wide vector does one step per 128-bit block. rc weighs the
// corners' colour, bc the red-or-blue pixel's own.
// False (nothing done) where the CPU has no 128-bit vectors.
bool DebayerGraySteps(const uint8_t* up, const uint8_t* mid, const uint8_t* down, uint8_t* dst, int64_t steps,
                      uint32_t rc, uint32_t g2y, uint32_t bc);

}  // namespace sluice::kernels::debayer_detail

namespace sluice::kernels::debayer_detail {

// OpenCV's SIMD VNG pixels (its 8-pixel blocks, lane for lane; as many blocks per vector as the
// CPU's width holds, lanes being independent): `blocks` blocks of 8 pixels from column x0
// (a red-or-blue pixel; lanes alternate with green) of mosaic row `s` (row stride w), with the
// gradient planes of the rows above, at and below (g0, g1, g2: 7 planes of w values each, in the
// order of debayer_vng.cc), writing 8 * blocks RGB pixels from `out` (the pixel of column x0) with
// blue in channel blue_idx.
// False (nothing done) where the CPU has no 128-bit vectors.
bool DebayerVngBlocks(const uint8_t* s, int64_t w, const uint16_t* g0, const uint16_t* g1, const uint16_t* g2,
                      int64_t x0, int64_t blocks, int blue_idx, uint8_t* out);

// The 7 VNG gradient planes (w values each, debayer_vng.cc's order) of the mosaic row `mid`, with
// its neighbours `up` and `down`, for columns 1 .. x - 1 in whole vectors; returns x, the first
// column left to the caller (1 where the CPU has no vectors). Reads columns 0 .. x of the rows.
int64_t DebayerVngGradients(const uint8_t* up, const uint8_t* mid, const uint8_t* down, int64_t w, uint16_t* planes);

}  // namespace sluice::kernels::debayer_detail
