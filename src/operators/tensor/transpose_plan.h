// The plan of transpose (output shapes and layout), computed in Setup by the CPU and the GPU
// operators with the same code.
#pragma once
#include <string>
#include <vector>

#include "operators/operator.h"

namespace sluice {

struct TransposeArgs {
  explicit TransposeArgs(const Operator& op);
  std::vector<int> perm;
  std::string output_layout;
  bool transpose_layout = true;
};
// The output shapes (output dim k = input dim perm[k]) and layout; checks each sample's rank.
OutputDesc PlanTranspose(const Operator& op, const TransposeArgs& args, const Workspace& ws);

}  // namespace sluice
