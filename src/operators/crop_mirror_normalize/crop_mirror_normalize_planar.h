// crop_mirror_normalize on one channel-first sample (CHW image or CDHW volume; the sample's plan
// from PlanCropMirrorNormalize with a channel-first batch), shared by the operator and the fused
// resize + crop_mirror_normalize. Each input channel is a contiguous 1-channel HW image (DHW
// volume) and goes through the same kernels as interleaved input, with that channel's mean, std
// and fill value: straight into its output plane for a CHW/CDHW output, through thread-local
// scratch (one plane) and then interleaved for an HWC/DHWC output. pad_output's extra channel is 0.
// Reentrant; the scratch only grows.
#pragma once
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"

namespace sluice {

// `in`: p.channels x p.in_d x p.in_h x p.in_w elements of in_type (uint8 or float32; in_d is 1 for
// an image); `out`: the sample's output of out_type, channels first when `out_channels_first`.
void RunCmnPlanar(const void* in, DType in_type, const CmnSamplePlan& p, bool volume, bool out_channels_first,
                  DType out_type, void* out);

}  // namespace sluice
