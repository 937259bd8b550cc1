// Rank filters over a rectangular window of 2-D images: the median (DALI's experimental.median_blur)
// and the minimum / maximum (experimental.erode / experimental.dilate), as CV-CUDA computes them
// for DALI's GPU operators (DALI has no CPU version; these are Sluice's):
//   - window (kw x kh, width first as DALI's window_size / mask_size) at anchor (ax, ay): output
//     (y, x) looks at input rows y - ay .. y - ay + kh - 1 and columns x - ax .. x - ax + kw - 1,
//     each channel on its own;
//   - median: the element of rank (kw * kh) / 2 (0-based) of the sorted window, borders replicated
//     (CV-CUDA's median_blur: BORDER_REPLICATE; OpenCV's medianBlur likewise);
//   - min / max: border as given; in constant mode the outside value is numeric_limits<T>::max()
//     for min and numeric_limits<T>::min() for max (CV-CUDA's choice: neutral for integers, and
//     for float max the smallest positive normal, 1.17549435e-38, not -inf). DALI's `iterations`
//     is a bigger window (the operator's: as OpenCV and DALI's documentation say).
// Exact (no arithmetic): the same bytes on every SIMD target. Element types uint8, int16, uint16,
// float32; input and output of the same type, not overlapping. Images are views (ImageGeom) with
// interleaved channels (HWC) or planes of unit x stride (CHW, HW).
// Thread-safety: reentrant; each call allocates its own scratch rows.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/filter/convolution.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

enum class RankOp { kMin, kMax, kMedian };

struct RankFilterParams {
  RankOp op = RankOp::kMedian;
  int kw = 3, kh = 3;
  int anchor_x = 1, anchor_y = 1;  // in [0, kw) and [0, kh)
  BorderMode border = BorderMode::kClamp;
};

bool RankFilterSupports(DType t);

void RankFilter2D(const void* in, void* out, DType type, const ImageGeom& geom, const RankFilterParams& p);

// The compare-exchange pairs (a < b: min to a, max to b) of a network that places the element of
// rank k of n values at position k: Batcher's odd-even merge sort over the next power of two, the
// comparators touching positions >= n dropped (those hold +max and never move) and those that do
// not lead to position k pruned. Exposed for its test.
std::vector<std::pair<uint8_t, uint8_t>> SelectionNetwork(int n, int k);

}  // namespace sluice::kernels
