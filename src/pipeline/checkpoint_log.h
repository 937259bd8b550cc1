// The states of a graph's stateful operators (Operator::has_state(): readers), kept per iteration
// so that Executor::Checkpoint can say where the pipeline stood after any batch the consumer may
// still be holding, and put back by Executor::Restore. Which operators have state is their own
// business: this log knows them only as Operators.
//
// Concurrency: not thread-safe; the executor's mutex (mu_) guards every call. Record() and Live()
// call the operators' SaveState(), which takes the operator's own lock: lock order executor mu_,
// then the operator's locks (an operator never calls back into the executor).
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "operators/operator.h"
#include "pipeline/graph.h"

namespace sluice {

class CheckpointLog {
 public:
  using States = std::map<std::string, StateMap>;  // operator instance name -> its state

  // `ops` are the graph's nodes' operators, in node order; the log keeps those with has_state().
  // With `recording` false, Record() and Trim() do nothing (Restore still works).
  CheckpointLog(const Graph& graph, const std::vector<std::unique_ptr<Operator>>& ops, bool recording);

  bool recording() const { return recording_; }
  // Before `iteration` runs: keeps the operators' states (their state after the batch before).
  void Record(int64_t iteration);
  // Forgets states before `iteration`.
  void Trim(int64_t iteration);
  // The states kept before `iteration`; throws if none were.
  const States& At(int64_t iteration) const;
  // The operators' states now.
  States Live() const;
  // Puts every stateful operator where `states` says. Throws sluice::Error when `states` does not
  // name exactly this graph's stateful operators (before changing anything), or an operator's
  // error (naming the operator) when its state is bad.
  void Restore(const States& states);

 private:
  std::vector<std::pair<std::string, Operator*>> stateful_;  // instance name, operator
  bool recording_;
  std::deque<std::pair<int64_t, States>> kept_;  // (iteration, states before it), oldest first
};

}  // namespace sluice
