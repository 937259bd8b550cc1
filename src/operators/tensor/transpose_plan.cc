#include "operators/tensor/transpose_plan.h"

#include "kernels/tensor/transpose.h"

namespace sluice {

TransposeArgs::TransposeArgs(const Operator& op)
    : output_layout(op.Arg<std::string>("output_layout")), transpose_layout(op.Arg<bool>("transpose_layout")) {
  for (int64_t p : op.Arg<std::vector<int64_t>>("perm")) perm.push_back(static_cast<int>(p));
}

OutputDesc PlanTranspose(const Operator& op, const TransposeArgs& args, const Workspace& ws) {
  const TensorList& in = ws.Input(0);
  OutputDesc d{{}, in.dtype(), "", false};
  for (int i = 0; i < in.num_samples(); ++i) {
    const auto& dims = in.shape(i).dims();
    if (dims.size() != args.perm.size())
      op.ThrowArgError("perm", "has " + std::to_string(args.perm.size()) + " entries for a " + std::to_string(dims.size()) +
                                   "-d input");
    std::vector<int64_t> out(dims.size());
    try {
      kernels::TransposedShape(dims, args.perm, out);
    } catch (const Error& e) {
      op.ThrowArgError("perm", e.message());
    }
    d.shapes.push_back(TensorShape(out));
  }
  if (!args.output_layout.empty()) {
    d.layout = args.output_layout;
  } else if (args.transpose_layout && in.layout().size() == args.perm.size()) {
    for (int p : args.perm) d.layout += in.layout()[static_cast<size_t>(p)];
  }
  d.contiguous = SameShapes(d.shapes);
  return d;
}

}  // namespace sluice
