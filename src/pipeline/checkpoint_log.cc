#include "pipeline/checkpoint_log.h"

#include <algorithm>

#include <sluice/error.h>

namespace sluice {

CheckpointLog::CheckpointLog(const Graph& graph, const std::vector<std::unique_ptr<Operator>>& ops, bool recording)
    : recording_(recording) {
  const auto& nodes = graph.nodes();
  for (size_t n = 0; n < ops.size(); ++n)
    if (ops[n]->has_state()) stateful_.emplace_back(nodes[n].spec.name, ops[n].get());
}

CheckpointLog::States CheckpointLog::Live() const {
  States states;
  for (const auto& [name, op] : stateful_) states[name] = op->SaveState();
  return states;
}

void CheckpointLog::Record(int64_t iteration) {
  if (recording_) kept_.emplace_back(iteration, Live());
}

void CheckpointLog::Trim(int64_t iteration) {
  while (!kept_.empty() && kept_.front().first < iteration) kept_.pop_front();
}

const CheckpointLog::States& CheckpointLog::At(int64_t iteration) const {
  for (const auto& [it, states] : kept_)
    if (it == iteration) return states;
  throw Error("no operator state kept for iteration " + std::to_string(iteration));
}

void CheckpointLog::Restore(const States& states) {
  for (const auto& [name, op] : stateful_) {
    if (!states.count(name)) throw Error("the checkpoint has no state for the operator '" + name + "'");
  }
  for (const auto& entry : states) {
    const std::string& name = entry.first;  // a plain reference: clang 14 cannot capture bindings
    if (std::none_of(stateful_.begin(), stateful_.end(), [&](const auto& s) { return s.first == name; }))
      throw Error("the checkpoint has a state for an operator '" + name + "' that this pipeline lacks");
  }
  for (const auto& [name, op] : stateful_) {
    try {
      op->RestoreState(states.at(name));
    } catch (const Error& e) {
      Error::Context c;
      c.op = name;
      throw e.WithContext(c);
    }
  }
}

}  // namespace sluice
