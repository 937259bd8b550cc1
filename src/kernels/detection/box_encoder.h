// box_encoder (DALI's BoxEncoder, the MLPerf SSD matching): the IoU of every box with every
// anchor, where each box's best anchor (the last on ties) is set to 2 so that it always matches;
// then each anchor takes the box with the highest IoU (the last on ties) if that IoU > criteria.
// Outputs per anchor, [cx, cy, w, h]: the matched box, or the anchor itself when none matched;
// with offset, matched anchors get ((cx - acx) / aw - mean[0]) / std[0], likewise y,
// (log(w / aw) - mean[2]) / std[2], likewise h (DALI multiplies boxes and anchors by `scale` first,
// which cancels out; it is applied the same way here), and unmatched anchors 0; and the matched
// box's label (0 if none).
//
// Boxes and anchors are ltrb. Thread-safety: pure. Allocation: `ious` (boxes x anchors floats),
// reused by the caller.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/detection/boxes.h"

namespace sluice::kernels {

struct BoxEncoderParams {
  float criteria = 0.5f;
  bool offset = false;
  float scale = 1.f;
  float means[4] = {0, 0, 0, 0};
  float stds[4] = {1, 1, 1, 1};
};

// out_boxes: anchors.size() x 4 floats; out_labels: anchors.size().
void EncodeBoxes(const Box* boxes, const int32_t* labels, int64_t num_boxes, const std::vector<Box>& anchors,
                 const BoxEncoderParams& p, float* out_boxes, int32_t* out_labels, std::vector<float>& ious);

}  // namespace sluice::kernels
