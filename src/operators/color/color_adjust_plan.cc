#include "operators/color/color_adjust_plan.h"

#include <cmath>
#include <string>

#include "operators/registry.h"

namespace sluice {
namespace {

// The operator's per-sample values of `name`, or `neutral` for every sample where its schema has
// no such argument (brightness has no contrast); each value must be finite.
std::vector<float> FiniteArg(const Operator& op, const Workspace& ws, const char* name, float neutral) {
  const OpSchema* schema = OperatorRegistry::Get().Find(op.spec().op);
  std::vector<float> v = schema && schema->FindArg(name) ? op.PerSampleArg<float>(ws, name)
                                                         : std::vector<float>(static_cast<size_t>(ws.batch_size()), neutral);
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) {
      Error::Context c;
      c.op = op.name();
      c.argument = name;
      c.sample = static_cast<int>(i);
      throw Error("per-sample value: expected a finite number, got " + std::to_string(v[i]), c);
    }
  return v;
}

}  // namespace

void PlanBrightnessContrast(const Operator& op, const Workspace& ws, ColorAffinePlan& plan) {
  const TensorList& in = ws.Input(0);
  plan.in_type = in.dtype();
  if (!kernels::ColorKernelSupports(plan.in_type) || plan.in_type == DType::kFloat16)
    throw Error("input type " + std::string(ToString(plan.in_type)) +
                " is not supported (uint8, int16, int32 or float32)");
  plan.out_type = op.HasArg("dtype") ? op.Arg<DType>("dtype") : plan.in_type;
  const auto brightness = FiniteArg(op, ws, "brightness", 1.0f), shift = FiniteArg(op, ws, "brightness_shift", 0.0f);
  const auto contrast = FiniteArg(op, ws, "contrast", 1.0f);
  const OpSchema* schema = OperatorRegistry::Get().Find(op.spec().op);
  const bool has_center = schema && schema->FindArg("contrast_center") && op.HasArg("contrast_center");
  const auto center = has_center ? FiniteArg(op, ws, "contrast_center", 0.f)
                                 : std::vector<float>(static_cast<size_t>(ws.batch_size()),
                                                      static_cast<float>(kernels::ColorHalfRange(plan.in_type)));
  plan.coeffs.resize(static_cast<size_t>(ws.batch_size()));
  for (size_t i = 0; i < plan.coeffs.size(); ++i)
    plan.coeffs[i] = kernels::BrightnessContrastCoeffs(brightness[i], shift[i], contrast[i], center[i], plan.out_type);
  plan.output = OutputDesc{in.shapes(), plan.out_type, op.InputLayout(ws, 0), in.is_contiguous()};
}

void PlanColorTwist(const Operator& op, const Workspace& ws, ColorTwistPlan& plan) {
  const TensorList& in = ws.Input(0);
  for (int i = 0; i < in.num_samples(); ++i) {
    const TensorShape& s = in.shape(i);
    if (s[s.ndim() - 1] != 3)
      throw Error("expected HWC images or DHWC volumes with 3 (RGB) channels, sample " + std::to_string(i) +
                  " has shape " + s.ToString());
  }
  plan.in_type = in.dtype();
  if (!kernels::ColorKernelSupports(plan.in_type))
    throw Error("input type " + std::string(ToString(plan.in_type)) +
                " is not supported (uint8, int16, int32, float16 or float32)");
  plan.out_type = op.HasArg("dtype") ? op.Arg<DType>("dtype") : plan.in_type;
  const auto hue = FiniteArg(op, ws, "hue", 0), sat = FiniteArg(op, ws, "saturation", 1);
  const auto value = FiniteArg(op, ws, "value", 1), brightness = FiniteArg(op, ws, "brightness", 1);
  const auto contrast = FiniteArg(op, ws, "contrast", 1);
  const double half_range = IsFloating(plan.in_type) ? 0.5 : 128.0;
  plan.transforms.resize(static_cast<size_t>(ws.batch_size()));
  for (size_t i = 0; i < plan.transforms.size(); ++i)
    plan.transforms[i] =
        kernels::ColorTwistTransform(hue[i], sat[i], value[i], brightness[i], contrast[i], half_range);
  plan.output = OutputDesc{in.shapes(), plan.out_type, op.InputLayout(ws, 0), in.is_contiguous()};
}

}  // namespace sluice
