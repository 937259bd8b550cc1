// Runs resize's kernels on one planned sample, for the operator and the fused resize +
// crop_mirror_normalize alike: CHW images plane by plane and DHWC/CDHW volumes (CDHW channel by
// channel). A channel-first sample's channels are contiguous 1-channel images (volumes), so each is
// resized straight from its input plane into its output plane with channels = 1: no transposition,
// no scratch beyond the kernels' own.
#pragma once
#include <sluice/dtype.h>
#include "operators/resize/resize_plan.h"
#include "operators/resize/resize_volume_plan.h"

namespace sluice {

// `in`: p.channels x p.in_h x p.in_w elements of in_type; `out`: p.channels x p.out_h x p.out_w of
// out_type (a pair resize_types.h's ResizeTypesSupported accepts).
void ResizePlanes(const void* in, DType in_type, const ResizeSamplePlan& p, void* out, DType out_type);

// `in`: the DHWC (CDHW when `channels_first`) volume of `p`; `out`: its output in the same layout.
void ResizeVolumeSample(const void* in, DType in_type, const ResizeVolumeSamplePlan& p, bool channels_first, void* out,
                        DType out_type);

}  // namespace sluice
