// The operator graph: validation of specs against schemas, edges, cycles, pruning, execution order.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sluice/error.h>

#include "operators/op_spec.h"
#include "operators/schema.h"

namespace sluice {

enum class Stage { kCpu = 0, kMixed = 1, kGpu = 2 };
Stage StageOf(const std::string& device);

// Checks one spec against its schema and returns it normalized: argument values coerced to the
// schema types, outputs named. Throws sluice::Error for an unknown operator or argument (with a
// suggestion), a wrong argument type, a per-sample input for a constant-only argument, exclusive
// arguments given together, an unsupported device, or a wrong number of inputs.
// An operator without a backend for the spec's device:
//   kThrow        throws at once, listing the backends it has;
//   kDeferToBuild where the operator has a CPU backend, validates the spec as that CPU operator
//                 and returns it with its device kept: the pipeline then fails at Build, naming
//                 every such operator at once (MissingBackendsError), so that a DALI GPU pipeline
//                 ported to Sluice shows all it must move to the CPU in one error, not one per run.
enum class MissingBackend { kThrow, kDeferToBuild };
OpSpec ValidateSpec(OpSpec spec, MissingBackend missing = MissingBackend::kThrow);
// True if the spec's operator has no backend for the spec's device.
bool LacksBackend(const OpSpec& spec);
// One error naming every spec of `specs` that LacksBackend (instance, operator, device) and its CPU
// alternative; nullopt when there is none.
std::optional<Error> MissingBackendsError(const std::vector<OpSpec>& specs);

struct EdgeRef {
  int node = -1;    // producing node index in Graph::nodes()
  int output = -1;  // output index of that node
};

struct GraphNode {
  OpSpec spec;
  const OpSchema* schema = nullptr;
  Stage stage = Stage::kCpu;
  int insertion_index = 0;  // position among all added ops, pruned or not (stable seeds)
  std::vector<EdgeRef> inputs;
  std::map<std::string, EdgeRef> arg_inputs;
};

class Graph {
 public:
  // `specs` in the order they were added, each already passed through ValidateSpec.
  // Resolves edges, rejects duplicates, missing inputs, cycles, CPU operators fed GPU data and
  // outputs that nothing produces; drops operators that do not contribute to `outputs` (unless
  // `preserve`); orders nodes by stage, then topologically.
  Graph(const std::vector<OpSpec>& specs, const std::vector<std::string>& outputs);

  const std::vector<GraphNode>& nodes() const { return nodes_; }
  const std::vector<EdgeRef>& outputs() const { return outputs_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  // Whether the edge carries GPU data (produced by a mixed or gpu operator).
  bool IsGpuEdge(const EdgeRef& e) const { return nodes_[static_cast<size_t>(e.node)].stage != Stage::kCpu; }

 private:
  std::vector<GraphNode> nodes_;
  std::vector<EdgeRef> outputs_;
  std::vector<std::string> output_names_;
};

}  // namespace sluice
