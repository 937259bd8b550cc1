// Internal: what Resize and ResizeWindow share once the coefficient tables of the whole image are
// computed: argument checks, and the resampling of a block of the output from the source pixels
// its filter taps read.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_scratch.h"
#include "kernels/resize/resize_window.h"

namespace sluice::kernels::resize_detail {

// Throws Resize's errors for empty extents and channels outside 1..4.
void CheckResizeExtents(int in_h, int in_w, int channels, int out_h, int out_w);

// params.roi, or the whole full_w x full_h image; throws for a degenerate (empty or not finite) ROI.
ResizeRoi RoiOrWholeImage(const ResizeParams& params, int full_w, int full_h);

// Computes the outputs rows x cols (spans of output indices, not empty) of the resize whose tables
// are s.cx and s.cy. `in` holds the source pixels from column x0 and row y0 of the image the tables
// were computed for, `in_w` pixels of `channels` elements a row, rows `in_pitch` elements apart; it
// must hold every tap of the block. `out` points to output element (rows.begin, cols.begin), rows
// `out_pitch` elements apart. uint8 -> uint8 in Pillow's fixed point, anything else in float.
template <typename TIn, typename TOut>
void ResizeBlock(const TIn* in, size_t in_pitch, int in_w, int channels, int x0, int y0, Span rows, Span cols,
                 TOut* out, size_t out_pitch, ResizeScratch& s);

}  // namespace sluice::kernels::resize_detail
