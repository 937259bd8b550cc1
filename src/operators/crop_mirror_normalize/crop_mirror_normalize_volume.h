// crop_mirror_normalize on one DHWC volume (the sample's plan from PlanCropMirrorNormalize with a
// volume batch), shared by the operator and the fused resize + crop_mirror_normalize: output slice
// k is the image kernel on input slice z + k; a slice outside the volume is the window moved below
// its slice (every pixel: fill_values). A CDHW output goes through one slice's CHW planes in
// thread-local scratch, then each plane to its place. Reentrant; the scratch only grows.
#pragma once
#include "operators/crop_mirror_normalize/crop_mirror_normalize_plan.h"

namespace sluice {

// `in`: p.in_d x p.in_h x p.in_w x p.channels elements of in_type (uint8 or float32); `out`: the
// sample's output (CDHW when `cdhw`, else DHWC) of out_type.
void RunCmnVolume(const void* in, DType in_type, const CmnSamplePlan& p, bool cdhw, DType out_type, void* out);

}  // namespace sluice
