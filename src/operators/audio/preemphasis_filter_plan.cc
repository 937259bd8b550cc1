#include "operators/audio/preemphasis_filter_plan.h"

namespace sluice {
namespace {

kernels::PreemphasisBorder ParseBorder(const std::string& s) {  // the schema admits only these
  if (s == "zero") return kernels::PreemphasisBorder::kZero;
  if (s == "reflect") return kernels::PreemphasisBorder::kReflect;
  return kernels::PreemphasisBorder::kClamp;
}

}  // namespace

PreemphasisArgs::PreemphasisArgs(const Operator& op)
    : border(ParseBorder(op.Arg<std::string>("border"))), out_type(op.Arg<DType>("dtype")) {}

void PlanPreemphasis(const Operator& op, const PreemphasisArgs& args, const Workspace& ws, PreemphasisPlan& plan) {
  const TensorList& in = ws.Input(0);
  plan.coeff = op.PerSampleArg<float>(ws, "preemph_coeff");
  plan.output = OutputDesc{in.shapes(), args.out_type, in.layout(), in.is_contiguous()};
}

}  // namespace sluice
