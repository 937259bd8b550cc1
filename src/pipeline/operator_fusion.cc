#include "pipeline/operator_fusion.h"

#include <map>
#include <optional>
#include <set>

#include "operators/op_spec_encoding.h"
#include "operators/registry.h"

namespace sluice {
namespace {

// Fuses the first chain of `hook` found in `specs`; false when there is none.
bool FuseOne(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs, const std::string& fused_op,
             const FusedChain& hook) {
  std::map<std::string, int> uses;  // edge -> number of readers (operators, arguments, pipeline outputs)
  std::map<std::string, size_t> reader;
  for (size_t i = 0; i < specs.size(); ++i) {
    for (const auto& e : specs[i].inputs) {
      ++uses[e];
      reader[e] = i;
    }
    for (const auto& [a, e] : specs[i].arg_inputs) {
      ++uses[e];
      reader[e] = i + specs.size();  // never a chain link
    }
  }
  for (const auto& e : outputs) ++uses[e];
  auto next_of = [&](const OpSpec& s) -> std::optional<size_t> {
    if (s.outputs.size() != 1 || uses[s.outputs[0]] != 1) return std::nullopt;
    auto it = reader.find(s.outputs[0]);
    if (it == reader.end() || it->second >= specs.size()) return std::nullopt;
    const OpSpec& r = specs[it->second];
    if (r.inputs.size() != 1 || r.inputs[0] != s.outputs[0]) return std::nullopt;
    return it->second;
  };
  for (size_t first = 0; first < specs.size(); ++first) {
    std::vector<size_t> chain{first};
    bool ok = specs[first].op == hook.ops[0];
    for (size_t k = 1; ok && k < hook.ops.size(); ++k) {
      const auto next = next_of(specs[chain.back()]);
      ok = next && specs[*next].op == hook.ops[k];
      if (ok) chain.push_back(*next);
    }
    if (!ok) continue;
    std::vector<const OpSpec*> members;
    std::set<std::string> arg_names;
    for (size_t i : chain) {
      const OpSpec& s = specs[i];
      ok = ok && s.device == "cpu" && !s.args.count(hook.specs_arg);
      for (const auto& [a, e] : s.arg_inputs) ok = ok && arg_names.insert(a).second;
      members.push_back(&s);
    }
    if (!ok || (hook.check && !hook.check(members))) continue;
    OpSpec fused;
    fused.op = fused_op;
    fused.device = "cpu";
    fused.inputs = specs[chain.front()].inputs;
    fused.outputs = specs[chain.back()].outputs;
    fused.position = specs[chain.front()].position;
    std::vector<std::string> encoded, arg_lists;
    for (const OpSpec* s : members) {
      fused.name += (fused.name.empty() ? "" : "+") + s->name;
      encoded.push_back(EncodeSpec(*s));
      std::string names;
      for (const auto& [a, e] : s->arg_inputs) {
        names += (names.empty() ? "" : ",") + a;
        fused.arg_inputs[a] = e;
      }
      arg_lists.push_back(names);
    }
    fused.args[hook.specs_arg] = encoded;
    fused.args[hook.arg_inputs_arg] = arg_lists;
    specs[chain.front()] = std::move(fused);
    std::set<size_t> drop(chain.begin() + 1, chain.end());
    std::vector<OpSpec> kept;
    for (size_t i = 0; i < specs.size(); ++i)
      if (!drop.count(i)) kept.push_back(std::move(specs[i]));
    specs = std::move(kept);
    return true;
  }
  return false;
}

}  // namespace

int ApplyOperatorFusion(std::vector<OpSpec>& specs, const std::vector<std::string>& outputs) {
  const OperatorRegistry& registry = OperatorRegistry::Get();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].position < 0) specs[i].position = static_cast<int>(i);
  int fused = 0;
  for (const std::string& name : registry.Names()) {
    const OpSchema* schema = registry.Find(name);
    if (!schema || !schema->fused_chain() || schema->fused_chain()->ops.size() < 2) continue;
    while (FuseOne(specs, outputs, name, *schema->fused_chain())) ++fused;
  }
  return fused;
}

}  // namespace sluice
