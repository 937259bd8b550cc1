// The autotuner's policy: the worker count and the prefetch depth for the next batches, as a pure
// function of what the executor measured over the last window of batches and of the search's state
// (no clock, no threads: tests feed it measurements). The Autotuner (autotuner.h) collects the
// windows and applies the decisions.
//
// Threads (tune_threads): a hill climb on the throughput the consumer sees (batches taken per
// second), which counts everything the worker count changes: decode threads that block on I/O or
// page faults (more workers than cores can be faster), and the consumer's own thread sharing the
// cores (more workers can be slower).
//   - A step measures one thread count over kWindowsPerStep windows; its rate is the median of
//     the windows' rates (a window slowed by another process or by an epoch's restart does not
//     decide).
//   - Baseline: the first step measures default_threads (the fixed default, one worker per
//     available CPU), so the search never settles below what the default measured.
//   - Up: then default + step, default + 2 step, ... up to max_threads (twice the CPUs); a count
//     is kept only when its rate beats the best so far by more than kMinGain; the first that does
//     not ends the climb.
//   - Down: when not even the first step up was kept and the consumer hardly waited at the best
//     count (it, not the workers, is the bottleneck), default - step, default - 2 step, ... are
//     measured the same way (fewer workers leave the cores to the consumer).
//   - Settled: back to the best count (the default unless another beat it). Its rate is still
//     measured step by step; a step off the settled rate by more than kWorkloadChange (the workload
//     or the consumer changed) starts the search again from the baseline.
// Every completed step is reported (ThreadTrial): the count, its rate, the consumer's wait, kept.
// Depth (tune_depth): deeper when the stage times vary: 2 + ceil(2 * cv - 0.5) slots, cv the
// coefficient of variation of the cpu stage's time per batch, within [1, max_depth]; decided when a
// step ends (every kWindowsPerStep windows, also when threads are not tuned), so a thread step is
// measured at one depth and the variance is that of the step's batches.
// Memory (memory_budget > 0): depth * slot_bytes + output_bytes (the batch the consumer holds while
// the next is made) must fit; the depth is lowered until it does. When one slot does not fit,
// Decide reports it (fits = false) and the executor fails with an error naming memory_budget.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sluice {

struct TuneLimits {
  bool tune_threads = false;
  bool tune_depth = false;
  int default_threads = 1;  // where the thread search starts: the fixed default (AvailableCpus)
  int max_threads = 1;      // the highest count it measures (the pool's bound: 2 * AvailableCpus)
  int max_depth = 1;        // the ring's size
  int fixed_depth = 1;      // the user's depth when !tune_depth (the budget may still lower it)
  size_t memory_budget = 0;  // bytes; 0: no budget
};

// What one window of batches measured, at `threads` workers and `depth` slots.
struct TuneWindow {
  int threads = 1;
  int depth = 1;
  int batches = 0;
  double stage_ms = 0;         // the cpu stage's mean time per batch (since the last depth decision)
  double stage_stddev_ms = 0;  // its standard deviation
  double period_ms = 0;        // mean time between two batches taken by the consumer
  double wait_ms = 0;          // mean time the consumer waited for a batch
  size_t slot_bytes = 0;       // the largest slot's buffers (every node's outputs of one batch)
  size_t output_bytes = 0;     // the pipeline outputs of one batch
};

// One completed step of the thread search.
struct ThreadTrial {
  int threads = 0;
  double batches_per_s = 0;  // the median of the step's window rates
  double wait_fraction = 0;  // the consumer's wait over its period (the median window's)
  bool kept = false;         // the best count after this step (the baseline always is)
};

// The thread search's state between windows (a value: the Autotuner keeps it, tests inspect it).
struct ThreadSearch {
  enum class Phase { kBaseline, kUp, kDown, kSettled };
  Phase phase = Phase::kBaseline;
  int threads = 1;        // the count being measured (or settled on)
  int best_threads = 1;
  double best_rate = 0;   // batches/s
  double best_wait_fraction = 0;
  int64_t steps = 0;      // completed steps, settled ones included
  int searches = 1;       // 1 + restarts after a workload change
  std::vector<double> window_rates;  // this step's windows so far
  std::vector<double> window_waits;
  int depth_windows = 0;             // windows since the last depth decision (threads not tuned)
  std::vector<ThreadTrial> trials;   // completed search steps (not the settled checks), oldest first
};

struct TuneDecision {
  int threads = 1;
  int depth = 1;
  bool fits = true;        // false: one slot and the held outputs exceed memory_budget
  size_t needed_bytes = 0;  // depth * slot_bytes + output_bytes at the chosen depth (1 when !fits)
  bool step_ended = false;  // a step ended with this window (the depth may change)
  std::string reason;       // why threads/depth changed, or "" when nothing changed
};

// The consumer waited more than this fraction of its period: producer-bound.
inline constexpr double kProducerBoundWait = 0.05;
// Windows per step of the thread search (their median rate is the step's).
inline constexpr int kWindowsPerStep = 6;
// A count is kept only when it beats the best rate by more than this fraction.
inline constexpr double kMinGain = 0.03;
// A settled count whose step rate moves this far from the settled rate restarts the search.
inline constexpr double kWorkloadChange = 0.3;
// Trials kept in ThreadSearch::trials (the oldest go first).
inline constexpr size_t kMaxTrials = 32;

// The search's first state: the baseline step at default_threads (within [1, max_threads]).
ThreadSearch StartThreadSearch(const TuneLimits& limits);
// The distance between two counts the search measures: max(1, default_threads / 4).
int ThreadStepSize(const TuneLimits& limits);
// Adds one window measured at s.threads (w.threads); returns the count for the next window and
// sets `reason` when it differs or a step ended ("" otherwise).
int StepThreadSearch(const TuneLimits& limits, const TuneWindow& w, ThreadSearch& s, std::string& reason);

// Threads (through `search` when tune_threads), depth and the budget for the next window.
TuneDecision DecideTuning(const TuneLimits& limits, const TuneWindow& window, ThreadSearch& search);

// The depth the variance asks for: 2 + ceil(2 * cv - 0.5), within [1, max_depth].
int DepthForVariance(double mean_ms, double stddev_ms, int max_depth);

const char* PhaseName(ThreadSearch::Phase phase);

}  // namespace sluice
