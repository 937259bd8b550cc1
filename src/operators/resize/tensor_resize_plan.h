// tensor_resize's per-sample plan: DALI's rules for the output extents of any axes of a tensor
// (sizes or scales, axes / axis_names, roi, mode, max_size, size_rounding, subpixel_scale with
// alignment), and the tensor seen as the existing separable resize kernels see it:
//   outer x [2 or 3 spatial groups] x channels
// where the resized axes are spatial groups, unresized axes between them merge into one spatial
// group of unchanged extent, the unresized axes after the last resized one are the channels (or,
// when they hold more than 4 elements, one more unchanged spatial group with 1 channel) and those
// before the first are `outer` (samples of the kernel call; folded into an unchanged leading
// group where the filter copies unchanged axes exactly). One group: a leading group of 1.
#pragma once
#include <array>
#include <optional>
#include <vector>

#include "kernels/resize/resize.h"
#include "operators/resize/resize_size.h"
#include "operators/operator.h"

namespace sluice {

enum class SizeRounding { kRound, kTruncate, kCeil };

// The constant arguments, read once by the operator's constructor.
struct TensorResizeArgs {
  explicit TensorResizeArgs(const Operator& op);
  kernels::ResizeParams params;  // filters and antialias; the roi is per group
  ResizeMode mode = ResizeMode::kDefault;
  SizeRounding rounding = SizeRounding::kRound;
  std::vector<double> max_size;  // as given: one value or one per axis
  std::optional<DType> out_type;
  bool roi_relative = false, subpixel_scale = true;
  bool has_sizes = false;  // else scales
};

// One sample: its output shape and the kernel call.
struct TensorResizeSamplePlan {
  TensorShape out_shape;
  bool copy = false;     // nothing is resized (or the sample is empty): the data is copied (converted)
  int64_t outer = 1;     // kernel calls, each on the next in/out block
  int groups = 0;        // 2 (Resize) or 3 (ResizeVolume)
  std::array<int, 3> in{}, out{};      // group extents, outermost first
  std::array<double, 3> lo{}, hi{};    // the source region of each group (hi < lo flips)
  int channels = 1;
};

struct TensorResizePlan {
  std::vector<TensorResizeSamplePlan> samples;
  OutputDesc output;
};

// Plans the batch (uint8 or float32 tensors of rank >= 1); errors name the argument.
void PlanTensorResize(const Operator& op, const TensorResizeArgs& args, const Workspace& ws, TensorResizePlan& plan);

}  // namespace sluice
