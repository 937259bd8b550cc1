// The executor's autotuner: collects windows of measurements (the cpu stage's time per batch and
// its slot's bytes, the consumer's period and wait), asks the policy (autotune_policy.h) for the
// worker count and depth, and keeps the decisions and the thread search's steps for the
// statistics. The executor applies them: the thread pool's size at the start of a cpu batch
// (outside its lock), the ring's depth limit under its lock.
//
// Windows: the first kWarmupTakes batches taken are not measured (first allocations); a window
// ends after kWindowTakes batches taken and at least two cpu batches; after a change the next
// max(kSettleTakes, depth) batches taken (made at the old setting) are not measured. The memory budget is
// checked after every cpu batch, not per window: a slot that grew lowers the depth at once, and
// until the first batch shows a slot's size the depth is 1. The stage times behind the depth's
// variance are those since the last thread step ended.
//
// Concurrency: one mutex of its own, the innermost lock (taken with or without the executor's mu_;
// never calls out while holding it). OnCpuBatch/Poll come from the cpu stage's thread, OnTake from
// the consumer's.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <sluice/pipeline.h>

#include "pipeline/autotune_policy.h"

namespace sluice {

class Autotuner {
 public:
  static constexpr int kWarmupTakes = 2;
  static constexpr int kWindowTakes = 4;
  static constexpr int kSettleTakes = 2;
  static constexpr size_t kMaxChanges = 64;

  // `threads`: the pool's workers now; `depth`: the depth limit the executor starts with.
  Autotuner(const TuneLimits& limits, int threads, int depth);

  // The depth limit to start with: 1 under a memory budget (until a slot's size is known).
  static int InitialDepth(const TuneLimits& limits);

  struct Setting {
    int threads;
    int depth;
  };
  // The cpu stage finished a batch in `stage_ms`; its slot holds `slot_bytes`, of which the
  // pipeline outputs `output_bytes`. Returns an error message (naming memory_budget) when one
  // batch cannot fit the budget; the executor fails with it.
  std::optional<std::string> OnCpuBatch(double stage_ms, size_t slot_bytes, size_t output_bytes);
  // The consumer took a batch after waiting `wait_ms`.
  void OnTake(double wait_ms);
  // What the cpu stage should run its next batch with (decides when a window is complete).
  Setting Poll();

  AutotuneStatistics Snapshot() const;

 private:
  using Clock = std::chrono::steady_clock;
  void Record(const std::string& reason);  // mu_ held

  const TuneLimits limits_;
  mutable std::mutex mu_;
  int threads_;
  int depth_;
  int wanted_depth_;  // what auto depth asks for before the budget (tune_depth)
  int64_t taken_ = 0;
  int skip_takes_ = kWarmupTakes;
  std::optional<Clock::time_point> last_take_;
  // The current window.
  std::vector<double> stage_ms_;  // since the last thread step ended
  int window_takes_ = 0;
  int window_cpu_batches_ = 0;
  double window_period_sum_ = 0;
  double window_wait_sum_ = 0;
  size_t slot_bytes_ = 0;
  size_t output_bytes_ = 0;
  TuneWindow last_window_;
  TuneDecision last_decision_;
  ThreadSearch search_;
  std::vector<AutotuneChange> changes_;
};

}  // namespace sluice
