// Graph pass: operator fusion. Where an operator's schema declares that it fuses a chain of
// operators (OpSchema::Fuses: e.g. resize -> crop_mirror_normalize), every such chain in the
// graph becomes one spec of that operator. A chain qualifies when its operators run on the CPU,
// each has one output read only by the next operator (as its input 0; not by the pipeline, not by
// any other operator, not as an argument), and their per-sample argument names do not collide.
// The fused spec is named after the chain ("resize#0+crop_mirror_normalize#0"), takes the first
// operator's inputs and position (OpSpec::position: every operator keeps its derived seed) and
// the last one's outputs. The pass knows no operator by name; it follows the schemas' hooks.
#pragma once
#include <string>
#include <vector>

#include "operators/op_spec.h"

namespace sluice {

// Returns how many chains were fused.
int ApplyOperatorFusion(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs);

}  // namespace sluice
