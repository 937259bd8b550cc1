// The plans of the colour adjustments, shared by their CPU and GPU operators: the per-sample
// coefficients in DALI's float order (kernels/color/color_adjust.h), the checks and the output.
//   brightness, contrast, brightness_contrast -> ColorAffinePlan (out = in * mul + add)
//   hsv, hue, saturation, color_twist         -> ColorTwistPlan (out = M * rgb + offset)
// Errors name the operator and, for a non-finite per-sample value, the argument and the sample.
#pragma once
#include <vector>

#include "kernels/color/color_adjust.h"
#include "operators/operator.h"

namespace sluice {

struct ColorAffinePlan {
  DType in_type = DType::kUInt8, out_type = DType::kUInt8;
  std::vector<kernels::AffineCoeffs> coeffs;  // per sample
  OutputDesc output;
};
void PlanBrightnessContrast(const Operator& op, const Workspace& ws, ColorAffinePlan& plan);

struct ColorTwistPlan {
  DType in_type = DType::kUInt8, out_type = DType::kUInt8;
  std::vector<kernels::ColorTransform> transforms;  // per sample
  OutputDesc output;
};
void PlanColorTwist(const Operator& op, const Workspace& ws, ColorTwistPlan& plan);

}  // namespace sluice
