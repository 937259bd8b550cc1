// The per-sample plan of crop, computed in Setup by the CPU and the GPU operators with the same
// code (windows after out_of_bounds_policy, fill pixels converted to the input type, output shapes
// and layout), so both check the data the same way and hand their kernels the same numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "operators/operator.h"

namespace sluice {

struct CropOpArgs {  // the constant arguments, read once by the constructor
  explicit CropOpArgs(const Operator& op);
  kernels::OutOfBoundsPolicy policy;
  std::vector<double> fill;  // fill_values
};

struct CropSamplePlan {
  int64_t in_h = 0, in_w = 0, channels = 0;
  kernels::CropWindow window;  // after the policy
  int64_t in_d = 1;            // volumes: the input depth, the depth window after the policy
  int z = 0, d = 1;
  // The fill pixel: `channels` elements of the input type (fill_values[c % size], converted with
  // cast's rules). Empty when no pixel of the window is outside the image or the fill is all +0.
  std::vector<uint8_t> fill;
};

struct CropPlan {
  std::vector<CropSamplePlan> samples;
  bool channels_first = false;  // CHW or CDHW (else HWC or DHWC)
  bool volume = false;          // DHWC or CDHW
  OutputDesc output;
};

// The depth window [z, z + d) of a volume of in_d slices after `policy` (as
// kernels::ApplyOutOfBoundsPolicy for height and width); kError throws naming `op_name`.
void ApplyDepthPolicy(int& z, int& d, int in_d, kernels::OutOfBoundsPolicy policy, const std::string& op_name);

// Checks the batch (HWC or CHW images, DHWC or CDHW volumes; the window against
// out_of_bounds_policy="error") and plans it.
void PlanCrop(const Operator& op, const CropOpArgs& args, const Workspace& ws, CropPlan& plan);

}  // namespace sluice
