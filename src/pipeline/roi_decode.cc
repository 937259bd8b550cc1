#include "pipeline/roi_decode.h"

#include <map>
#include <set>

#include "operators/op_spec_encoding.h"
#include "operators/registry.h"

namespace sluice {

int ApplyRoiDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs) {
  const OperatorRegistry& registry = OperatorRegistry::Get();
  std::map<std::string, int> uses;  // edge -> number of readers (operators and pipeline outputs)
  std::map<std::string, size_t> reader;
  std::set<std::string> edges;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (const auto& e : specs[i].inputs) { ++uses[e]; reader[e] = i; }
    for (const auto& [a, e] : specs[i].arg_inputs) { ++uses[e]; reader[e] = i; }
    edges.insert(specs[i].outputs.begin(), specs[i].outputs.end());
  }
  for (const auto& e : outputs) ++uses[e];
  // The operator that reads `edge` as its input 0 and nothing else reads it; nullptr otherwise.
  auto only_reader = [&](const std::string& edge) -> OpSpec* {
    if (uses[edge] != 1 || !reader.count(edge)) return nullptr;
    OpSpec& r = specs[reader[edge]];
    if (r.device != "cpu" || r.inputs.empty() || r.inputs[0] != edge || r.outputs.empty()) return nullptr;
    return &r;
  };
  int changed = 0;
  for (auto& s : specs) {
    const OpSchema* schema = registry.Find(s.op);
    if (!schema || !schema->windowed_output() || s.device != "cpu" || s.outputs.size() != 1) continue;
    const WindowedOutput& hook = *schema->windowed_output();
    if (auto it = s.args.find(hook.enable_arg); it != s.args.end() && !std::get<bool>(it->second)) continue;
    if (s.args.count(hook.rule_arg) || s.arg_inputs.count(hook.rule_arg)) continue;
    // First consumer: takes the window and computes as for the whole image.
    OpSpec* first = only_reader(s.outputs[0]);
    const OpSchema* first_schema = first ? registry.Find(first->op) : nullptr;
    if (!first_schema || first_schema->input_window_arg().empty() || !first_schema->input_region()) continue;
    const std::string& window_arg = first_schema->input_window_arg();
    if (first->args.count(window_arg) || first->arg_inputs.count(window_arg)) continue;
    if (!first_schema->input_region()(*first)) continue;
    // Then every operator that reads a fixed part of its input, as far as the chain goes.
    std::vector<const OpSpec*> chain{first};
    for (OpSpec* next = only_reader(first->outputs[0]); next; next = only_reader(next->outputs[0])) {
      const OpSchema* ns = registry.Find(next->op);
      if (!ns || !ns->input_region() || !ns->input_region()(*next)) break;
      chain.push_back(next);
      if (next->outputs.size() != 1) break;
    }
    if (chain.size() < 2) continue;  // nothing after the first consumer selects a part
    const std::string window_edge = s.name + "[roi_window]";
    if (edges.count(window_edge)) continue;
    std::vector<std::string> encoded;
    for (const OpSpec* c : chain) encoded.push_back(EncodeSpec(*c));
    s.args[hook.rule_arg] = std::move(encoded);
    s.outputs.push_back(window_edge);
    edges.insert(window_edge);
    first->arg_inputs[window_arg] = window_edge;
    ++changed;
  }
  return changed;
}

}  // namespace sluice
