// resize's per-sample plan: input and output extents and the kernel parameters with the sample's
// region of interest (y, x order like DALI; a negative resize_x/resize_y or start > end mirrors).
// Computed once per batch by the same code for the CPU and the GPU operator (the GPU then builds
// its coefficient tables with the CPU kernel's resample_coeffs.h from these parameters).
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "kernels/resize/resize.h"
#include "kernels/resize/resize_window.h"
#include "operators/resize/resize_size.h"
#include "operators/operator.h"

namespace sluice {

// The constant arguments (schema-validated), read once by the operator's constructor.
struct ResizeArgs {
  explicit ResizeArgs(const Operator& op);
  kernels::ResizeParams params;  // filters and antialias (resampling_args.h)
  ResizeMode mode = ResizeMode::kDefault;
  std::array<double, 2> max_size{0, 0};
  std::vector<double> max_size_values;  // as given: one value, (h, w), or (d, h, w) for volumes
  std::optional<DType> out_type;  // default: the input's
  bool roi_relative = false;
  // DALI's subpixel_scale: a fractional output extent keeps its scale (the region of interest is
  // adjusted about its centre to the rounded extent) instead of stretching the region to it.
  bool subpixel_scale = true;
};

struct ResizeSamplePlan {
  int in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;  // in_h, in_w: the whole image's
  kernels::ResizeParams params;  // the arguments' filters with this sample's roi
  // Set when the input is only a window of the image (input_window, from ROI decode): the input
  // buffer then holds window extents, not in_h x in_w.
  std::optional<kernels::ResizeInputWindow> window;
};

// One sample's size and region arguments (constants, or the sample's value of a per-sample input).
struct ResizeSampleArgs {
  double rx = 0, ry = 0, shorter = 0, longer = 0;
  std::vector<double> size, roi_start, roi_end;
  // The batch's values (reads the per-sample inputs) into `out`.
  static void At(const Operator& op, const Workspace& ws, int n, std::vector<ResizeSampleArgs>& out);
  // The constant values (throws naming the argument if one is given per sample).
  static ResizeSampleArgs Constant(const Operator& op);
};

// Plans one sample for an in_h x in_w image (DALI's size rules over its region of interest).
void PlanResizeSample(const Operator& op, const ResizeArgs& args, const ResizeSampleArgs& a, int in_h, int in_w,
                      int channels, ResizeSamplePlan& p);

struct ResizePlan {
  std::vector<ResizeSamplePlan> samples;
  OutputDesc output;
  // CHW input: every channel plane is resized as a 1-channel image (samples' `channels` is the
  // plane count, any number >= 1; the kernels run with channels = 1). Output CHW.
  bool channels_first = false;
};

// Checks the batch (uint8/float32 images of 1..4 channels, per-sample sizes and ROIs; that they are
// HWC, the calling operator's schema declares and the framework checks) and plans every sample: DALI's output-size rules (resize_size.h) over the region of interest.
// Volumes (DHWC) are planned by resize_volume_plan.h; here they are an error.
// `windowed_input`: the caller runs samples with a window (the CPU operator); otherwise the
// input_window argument is an error. `planar_input`: the caller runs CHW images plane by plane (the
// CPU operators); otherwise a CHW input is an error.
void PlanResize(const Operator& op, const ResizeArgs& args, const Workspace& ws, ResizePlan& plan,
                bool windowed_input = false, bool planar_input = false);

}  // namespace sluice
