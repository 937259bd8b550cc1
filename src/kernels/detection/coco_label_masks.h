// readers.coco's pixelwise mask as DALI 2.4 composes it from per-label masks (COCOReader::
// PixelwiseMasks), reproduced run for run so that the output is DALI's pixel for pixel:
//
//  - Each label's mask is one RLE: the union of its objects' polygons when it has any (an RLE
//    mask of the same label is then ignored), otherwise its LAST object's RLE mask (in object order).
//  - Labels are merged in ascending order into a run list (column-major runs, each with a value),
//    starting from the lowest label's runs. Merging label b walks the current runs and b's runs
//    together, cutting a segment at every boundary of either; a segment is b where only b covers
//    it, the current value where only that does, and b where both do -- except the LAST segment
//    (the one reaching the final pixel), where the current value is kept (DALI's "last annotation
//    wins" test reads the already-advanced run counter there). So an overlap that reaches the
//    image's bottom-right pixel keeps the lower label on that segment.
//  - A run list that runs out early (an RLE whose counts hold a zero past the first count) ends the
//    merge there, as in DALI; pixels past the last run stay 0.
//
// Deliberate difference: DALI starts from the lowest label even when it has no mask (an object
// whose "segmentation" is empty), and then outputs an all-zero mask; here labels without a mask
// are skipped wherever they are.
//
// Thread-safety: pure function. Allocation: run lists proportional to the masks' runs.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/detection/coco_mask.h"

namespace sluice::kernels {

// The union of `rles` (all height x width, non-empty list), as a canonical RLE (the first count may
// be 0; every other count positive). One RLE is returned as it is (as pycocotools' rleMerge does).
CocoRle UnionCocoRles(const std::vector<CocoRle>& rles);

struct LabelMask {
  int32_t label;
  const CocoRle* rle;  // nullptr: the label has no mask
};

// Writes the row-major height x width int32 mask composed from `labels` (ascending, distinct) by
// the rule above. Every RLE must be height x width with counts summing to height * width.
void ComposeCocoLabelMasks(const std::vector<LabelMask>& labels, int height, int width, int32_t* mask);

}  // namespace sluice::kernels
