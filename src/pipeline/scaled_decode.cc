#include "pipeline/scaled_decode.h"

#include <map>

#include "operators/registry.h"

namespace sluice {

int ApplyScaledDecode(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs) {
  const OperatorRegistry& registry = OperatorRegistry::Get();
  std::map<std::string, int> uses;  // edge -> number of consumers
  std::map<std::string, size_t> consumer;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (const auto& e : specs[i].inputs) { ++uses[e]; consumer[e] = i; }
    for (const auto& [a, e] : specs[i].arg_inputs) { ++uses[e]; consumer[e] = i; }
  }
  for (const auto& e : outputs) ++uses[e];
  int changed = 0;
  for (auto& s : specs) {
    const OpSchema* schema = registry.Find(s.op);
    if (!schema || !schema->size_hint() || s.outputs.empty()) continue;
    const SizeHint& hint = *schema->size_hint();
    // The enable argument as given, else its default (true on decoders.image, false on the
    // decoders that decode a window: theirs is opt-in).
    bool enabled = true;
    if (auto it = s.args.find(hint.enable_arg); it != s.args.end()) enabled = std::get<bool>(it->second);
    else if (const ArgSchema* a = schema->FindArg(hint.enable_arg); a && a->default_value)
      enabled = std::get<bool>(*a->default_value);
    if (!enabled) continue;
    if (s.args.count(hint.hint_arg) || s.arg_inputs.count(hint.hint_arg)) continue;
    const std::string& edge = s.outputs[0];
    if (uses[edge] != 1 || !consumer.count(edge)) continue;
    const OpSpec& user = specs[consumer[edge]];
    if (user.inputs.empty() || user.inputs[0] != edge) continue;
    const OpSchema* user_schema = registry.Find(user.op);
    if (!user_schema || !user_schema->min_input_size()) continue;
    const auto bound = user_schema->min_input_size()(user);
    if (!bound) continue;
    s.args[hint.hint_arg] = std::vector<int64_t>{(*bound)[0], (*bound)[1]};
    ++changed;
  }
  return changed;
}

}  // namespace sluice
