// random_bbox_crop's window (DALI's RandomBBoxCrop, 2-D): a random crop of a relative [0, 1]^2
// image whose overlap with the boxes passes a threshold drawn at random, and the boxes that stay.
//
// Per sample: an option is drawn uniformly among the thresholds (and "no crop" when allow_no_crop);
// "no crop" returns the whole image and every box. Otherwise up to num_attempts windows are drawn
// for that threshold: each side a scale uniform in [scaling_min, scaling_max] (or the fixed
// crop_shape relative to input_shape), redrawn when the window's aspect ratio (w / h) falls outside
// [aspect_min, aspect_max]; then an anchor uniform so that the window lies in the image. A window is
// accepted when every box's (all_boxes_above_threshold, else some box's) overlap with it is >= the
// threshold (IoU, or intersection / box area with threshold_type "overlap") and at least one box
// stays. If no window passes, a new option is drawn; after total_num_attempts windows (or 10,000 when
// it is -1, so that impossible requests end) the whole image is returned.
// Boxes that stay: those whose centre lies in the window (bbox_prune_threshold < 0), else those
// whose intersection with it covers at least bbox_prune_threshold of their own area; they are
// clipped to the window and expressed relative to it.
// An image without boxes: any window of the first drawn option is accepted (no box can fail).
//
// Thread-safety: pure given its RandomGenerator. Allocation: the result's vectors.
#pragma once
#include <cstdint>
#include <vector>

#include "core/random.h"
#include "kernels/detection/boxes.h"

namespace sluice::kernels {

struct BBoxCropParams {
  std::vector<float> thresholds{0.f};
  float aspect_min = 1.f, aspect_max = 1.f;
  float scaling_min = 1.f, scaling_max = 1.f;
  bool allow_no_crop = true;
  int num_attempts = 1;
  int64_t total_num_attempts = -1;
  bool overlap = false;  // threshold_type "overlap" (intersection / box area) instead of "iou"
  bool all_boxes_above_threshold = true;
  float prune_threshold = -1.f;  // < 0: keep boxes whose centre is in the window
  // crop_shape: a fixed window size relative to the image (> 0 when given).
  float fixed_w = 0.f, fixed_h = 0.f;
};

struct BBoxCropResult {
  Box window{0, 0, 1, 1};
  std::vector<Box> boxes;        // kept boxes, relative to the window
  std::vector<int32_t> indices;  // their indices among the input boxes
  int option = 0;  // index of the threshold drawn (thresholds.size(): no crop; -1: attempts ran out)
};

BBoxCropResult RandomBBoxCrop(const std::vector<Box>& boxes, const BBoxCropParams& p, RandomGenerator& rng);

}  // namespace sluice::kernels
