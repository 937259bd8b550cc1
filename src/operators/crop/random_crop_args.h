// The random crop window's arguments (random_area, random_aspect_ratio, num_attempts), shared by
// random_resized_crop, random_crop_generator and decoders.image_random_crop: declared, checked and
// read in one place, with DALI's defaults. The window itself is kernels/crop/random_crop_window.h's.
#pragma once
#include "kernels/crop/random_crop_window.h"
#include "operators/operator.h"
#include "operators/schema.h"

namespace sluice {

// Declares the three arguments (one value of a range means a fixed value) and the schema check of
// the ranges: 0 < random_area's min <= max <= 1, 0 < random_aspect_ratio's min <= max.
// `what` names the window in the docs ("crop", "window").
OpSchema& AddRandomCropArgs(OpSchema& s, const std::string& what);

// The arguments as the kernel takes them.
kernels::RandomCropParams RandomCropParamsFrom(const Operator& op);

}  // namespace sluice
