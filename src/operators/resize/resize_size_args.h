// The output-size and region arguments that resize and resize_crop_mirror share, as DALI's schemas
// share them through AddParent("ResizeAttr"): resize_x / resize_y / resize_z, size,
// resize_shorter, resize_longer, max_size, mode, roi_start, roi_end, roi_relative and
// subpixel_scale, with the rule that exactly one way of giving the size is used. Read by
// ResizeArgs and ResizeSampleArgs (resize_plan.h).
#pragma once
#include "operators/schema.h"

namespace sluice {

// Declares the arguments above on `s`, in that order, with DALI's defaults, and their check.
OpSchema& AddResizeSizeArgs(OpSchema& s);

}  // namespace sluice
