// Per-sample plans of crop, flip, transpose and cast: what the CPU and the GPU operators compute
// in Setup with the same code (windows after out_of_bounds_policy, fill pixels converted to the
// input type, flip flags, output shapes and layouts), so both check the data the same way and hand
// their kernels the same numbers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/crop_window.h"
#include "operators/operator.h"

namespace sluice {

// True if the batch is non-empty and every sample has the same shape (a contiguous output).
bool SameShapes(const std::vector<TensorShape>& shapes);

// ---- crop ----
struct CropOpArgs {  // the constant arguments, read once by the constructor
  explicit CropOpArgs(const Operator& op);
  kernels::OutOfBoundsPolicy policy;
  std::vector<double> fill;  // fill_values
};

struct CropSamplePlan {
  int64_t in_h = 0, in_w = 0, channels = 0;
  kernels::CropWindow window;  // after the policy
  // The fill pixel: `channels` elements of the input type (fill_values[c % size], converted with
  // cast's rules). Empty when no pixel of the window is outside the image or the fill is all +0.
  std::vector<uint8_t> fill;
};

struct CropPlan {
  std::vector<CropSamplePlan> samples;
  OutputDesc output;
};

// Checks the batch (HWC images, the window against out_of_bounds_policy="error") and plans it.
void PlanCrop(const Operator& op, const CropOpArgs& args, const Workspace& ws, CropPlan& plan);

// ---- flip ----
struct FlipPlan {
  std::vector<int> horizontal, vertical;  // per sample, 0 or 1
  OutputDesc output;
};
void PlanFlip(const Operator& op, const Workspace& ws, FlipPlan& plan);

// ---- transpose ----
struct TransposeArgs {
  explicit TransposeArgs(const Operator& op);
  std::vector<int> perm;
  std::string output_layout;
  bool transpose_layout = true;
};
// The output shapes (output dim k = input dim perm[k]) and layout; checks each sample's rank.
OutputDesc PlanTranspose(const Operator& op, const TransposeArgs& args, const Workspace& ws);

// ---- cast ----
OutputDesc PlanCast(DType to, const Workspace& ws);

}  // namespace sluice
