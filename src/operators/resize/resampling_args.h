// The resampling arguments that resize and random_resized_crop share, as DALI's schemas share them
// through AddParent("ResamplingFilterAttr"): interp_type, min_filter, mag_filter, antialias, dtype,
// minibatch_size and temp_buffer_hint.
#pragma once
#include <string>
#include <vector>

#include "kernels/resize/resize.h"
#include "operators/operator.h"
#include "operators/schema.h"

namespace sluice {

// interp_type's spellings, in DALIInterpType's order (an integer i names the i-th).
const std::vector<std::string>& ResizeFilterNames();

// Declares the resampling arguments on `s`, in the order above, with DALI's defaults (antialias:
// `antialias_default`, False for DALI's legacy fast_resize_crop_mirror).
void AddResamplingArgs(OpSchema& s, bool antialias_default = true);

// The filters and antialiasing that an operator declared with AddResamplingArgs was given
// (min_filter and mag_filter default to interp_type); the region of interest is left unset.
kernels::ResizeParams ResizeFilterParams(const Operator& op);

}  // namespace sluice
