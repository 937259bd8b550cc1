// resize's per-sample plan for DHWC and CDHW volumes (CPU only): DALI's output-size rules over depth,
// height and width (resize_z / resize_y / resize_x, a size of 3 or one value, resize_shorter /
// resize_longer over the three extents, max_size, mode), the region of interest in (z, y, x) order
// (one value: every axis; start > end or a negative resize_* mirrors) and subpixel_scale as for
// images (resize_plan.h).
#pragma once
#include <vector>

#include "kernels/resize/resize_volume.h"
#include "operators/resize/resize_plan.h"

namespace sluice {

struct ResizeVolumeSamplePlan {
  int in_d = 0, in_h = 0, in_w = 0, channels = 0, out_d = 0, out_h = 0, out_w = 0;
  kernels::ResizeParams params;  // the filters with this sample's (y, x) roi
  kernels::ResizeDepthRoi depth;
};

struct ResizeVolumePlan {
  std::vector<ResizeVolumeSamplePlan> samples;
  OutputDesc output;
  // CDHW input: every channel is resized as a 1-channel DHW volume (samples' `channels` is their
  // count, any number >= 1; the kernel runs with channels = 1). Output CDHW.
  bool channels_first = false;
};

// Plans a batch of DHWC volumes (uint8 or float32, 1..4 channels) or CDHW volumes (any number of
// channels), as the input's layout says; errors name the argument.
void PlanResizeVolumes(const Operator& op, const ResizeArgs& args, const Workspace& ws, ResizeVolumePlan& plan);

}  // namespace sluice
