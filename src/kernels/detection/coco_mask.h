// COCO segmentation masks: run-length encodings (RLE) as the COCO format stores them, polygon
// rasterisation with COCO's rule, and decoding into a pixel mask.
//
// An RLE covers an h x w mask in column-major order (x outer, y inner): counts alternate runs of
// 0s and 1s, starting with 0s (a first count of 0 when the mask starts with a 1). The counts sum to
// h * w for a well-formed RLE; DecodeRle checks it.
//
// Polygon rule (COCO's, the one pycocotools' annToMask / frPyObjects applies, so that masks agree
// with it pixel for pixel): the vertices are snapped to a grid 5x finer than the pixels
// (round(5 * v)), each edge of the closed polygon is digitised on that grid, and a pixel column x
// changes inside/outside at each point where the digitised outline crosses the column's centre
// line (5x + 2 on the fine grid); the row of the crossing (the upper end of that outline step) is
// rounded up to the next pixel centre.
// Pixels are then inside between an odd and the next even crossing of their column. Degenerate
// polygons (all points on a line) give an empty mask; vertices outside the image are allowed and
// clipped by the rule.
//
// Thread-safety: pure functions. Allocation: the output vectors.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::kernels {

struct CocoRle {
  int height = 0, width = 0;
  std::vector<uint32_t> counts;
};

// COCO's compressed RLE string ("counts" as a string: 6-bit groups, '0' + value, 0x20 = more
// groups follow, 0x10 of the last group = negative, counts after the second stored as differences
// to the one two before). Returns false (and leaves *counts unspecified) on a malformed string:
// a character outside '0'..'o', a group sequence cut short, or a negative count.
bool DecodeCocoRleString(std::string_view s, std::vector<uint32_t>* counts);

// The longest outline RasterizeCocoPolygon walks (points on the 1/5-pixel grid; 8 bytes each).
inline constexpr int64_t kMaxCocoPolygonOutline = int64_t{1} << 26;

// Rasterises the closed polygon of `n` points xy[2k], xy[2k+1] (pixel coordinates, COCO's rule
// above) into an RLE of an h x w mask. n >= 1; h, w >= 0. Throws sluice::Error for a vertex beyond
// +-2e8 pixels or an outline longer than kMaxCocoPolygonOutline (pycocotools would try to allocate
// it); the memory is otherwise proportional to the outline.
CocoRle RasterizeCocoPolygon(const double* xy, int n, int height, int width);

// Decodes `rle` into `mask` (row-major h x w, as images are) with `value` where the mask is set;
// other pixels are left as they are. Returns false when the counts do not sum to h * w (nothing is
// written past the mask; pixels before the faulty count may have been set).
bool PaintRle(const CocoRle& rle, int32_t value, int32_t* mask);

}  // namespace sluice::kernels
