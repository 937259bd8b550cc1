// The operator graph: validation of specs against schemas, edges, cycles, pruning, execution order.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "operators/op_spec.h"
#include "operators/schema.h"

namespace sluice {

enum class Stage { kCpu = 0, kMixed = 1, kGpu = 2 };
Stage StageOf(const std::string& device);

// Checks one spec against its schema and returns it normalized: argument values coerced to the
// schema types, outputs named. Throws sluice::Error for an unknown operator or argument (with a
// suggestion), a wrong argument type, a per-sample input for a constant-only argument, exclusive
// arguments given together, an unsupported device, or a wrong number of inputs.
OpSpec ValidateSpec(OpSpec spec);

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
