// crop_mirror_normalize's per-sample plan: the window after out_of_bounds_policy, the mirror flag,
// the normalization coefficients and fill values for the sample's channel count, the output
// shape. Computed once per batch by the same code for the CPU and the GPU operator, so both check
// the data the same way (same errors) and feed their kernels the same numbers.
#pragma once
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "kernels/crop_mirror_normalize/crop_mirror_normalize.h"
#include "operators/crop/spatial_layout.h"
#include "operators/operator.h"

namespace sluice {

// The constant arguments (schema-validated), read once by the operator's constructor.
struct CmnArgs {
  explicit CmnArgs(const Operator& op);
  DType out_type;
  // output_layout without a leading F: "CHW" or "HWC" (volumes: "CDHW" or "DHWC", either spelling).
  std::string layout;
  // output_layout began with F ("FCHW", "FHWC", ...): DALI's spelling for sequences, which the
  // operator sees frame by frame; the plan refuses it for a batch that is not a sequence.
  bool sequence_layout = false;
  std::vector<float> mean, stddev, fill;
  float scale = 1.f, shift = 0.f;
  bool pad_output = false;
  kernels::OutOfBoundsPolicy policy;
};

struct CmnSamplePlan {
  int in_h = 0, in_w = 0, channels = 0;
  // Volumes (DHWC input): the input depth and the depth window [z, z + d) after the policy; output
  // slice k is the 2-D plan applied to input slice z + k (all fill_values outside the volume).
  int in_d = 1, z = 0, d = 1;
  // The kernel's parameters: window (after the policy), mirror, layout, pad; its mean, stddev and
  // fill_values point into the CmnArgs the plan was made from.
  kernels::CmnParams params;
  kernels::CmnCoefficients coeffs;  // a, b and fill for `channels` (kernels::CmnNormalization)
  int out_channels = 0;
  bool empty() const { return params.crop_w == 0 || params.crop_h == 0; }
};

struct CmnPlan {
  std::vector<CmnSamplePlan> samples;
  bool volume = false;          // the batch is DHWC or CDHW volumes (CPU only)
  bool channels_first = false;  // the input is CHW or CDHW (CPU only; crop_mirror_normalize_planar.h)
  OutputDesc output;
};

// Checks the batch (uint8/float32 HWC or CHW images, DHWC or CDHW volumes, as the input's layout
// says (none: HWC for 3 dimensions, DHWC for 4), of 1..4 channels, mean/std/fill_values of 1 or C
// values, the window against out_of_bounds_policy="error") and plans every sample into `plan`.
// Per-sample arguments (crop, crop_pos_*, mirror) come from `ws`.
void PlanCropMirrorNormalize(const Operator& op, const CmnArgs& args, const Workspace& ws, CmnPlan& plan);
// The same for images of `shapes`, `dtype` and `layout` that are not ws.Input(0) (a fused operator
// plans crop_mirror_normalize on the output its resize will compute).
void PlanCropMirrorNormalize(const Operator& op, const CmnArgs& args, const Workspace& ws,
                             const std::vector<TensorShape>& shapes, DType dtype, const SpatialLayout& layout,
                             CmnPlan& plan);

}  // namespace sluice
