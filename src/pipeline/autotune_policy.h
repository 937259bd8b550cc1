// The autotuner's policy: the worker count and the prefetch depth for the next batches, as a pure
// function of what the executor measured over the last window of batches (no clock, no threads:
// tests feed it measurements). The Autotuner (autotuner.h) collects the windows and applies the
// decisions.
//
// Threads (tune_threads): start at every available CPU. Over a window, the consumer's period (time
// between two batches taken) is set by the slower side:
//   - the consumer waited for batches (more than kProducerBoundWait of its period): the cpu stage
//     is the bottleneck; add a thread, up to max_threads, unless that count was measured slower;
//     when no thread can be added, measure one thread less once (on a machine shared with other
//     processes fewer workers can be faster; if not, the next rule brings the count back);
//   - it hardly waited (the output queue stayed full): the consumer is the bottleneck and a worker
//     less costs nothing as long as the stage keeps up; remove one when the stage time scaled to
//     one thread less (stage_ms * t / (t - 1)) stays under kKeepUpMargin of the period, unless
//     that count was measured slower.
// Counts measured slower (period more than kSlowerBy above the current one) are not tried again, so
// the search settles instead of oscillating.
// Depth (tune_depth): deeper when the stage times vary: 2 + ceil(2 * cv - 0.5) slots, cv the
// coefficient of variation of the cpu stage's time per batch, within [1, max_depth].
// Memory (memory_budget > 0): depth * slot_bytes + output_bytes (the batch the consumer holds while
// the next is made) must fit; the depth is lowered until it does. When one slot does not fit,
// Decide reports it (fits = false) and the executor fails with an error naming memory_budget.
#pragma once
#include <cstddef>
#include <map>
#include <string>

namespace sluice {

struct TuneLimits {
  bool tune_threads = false;
  bool tune_depth = false;
  int max_threads = 1;     // the cores available to the process (AvailableCpus)
  int max_depth = 1;       // the ring's size
  int fixed_depth = 1;     // the user's depth when !tune_depth (the budget may still lower it)
  size_t memory_budget = 0;  // bytes; 0: no budget
};

// What one window of batches measured, at `threads` workers and `depth` slots.
struct TuneWindow {
  int threads = 1;
  int depth = 1;
  int batches = 0;
  double stage_ms = 0;         // the cpu stage's mean time per batch
  double stage_stddev_ms = 0;  // its standard deviation
  double period_ms = 0;        // mean time between two batches taken by the consumer
  double wait_ms = 0;          // mean time the consumer waited for a batch
  size_t slot_bytes = 0;       // the largest slot's buffers (every node's outputs of one batch)
  size_t output_bytes = 0;     // the pipeline outputs of one batch
};

struct TuneDecision {
  int threads = 1;
  int depth = 1;
  bool fits = true;        // false: one slot and the held outputs exceed memory_budget
  size_t needed_bytes = 0;  // depth * slot_bytes + output_bytes at the chosen depth (1 when !fits)
  std::string reason;       // why threads/depth changed, or "" when nothing changed
};

// The consumer waited more than this fraction of its period: producer-bound.
inline constexpr double kProducerBoundWait = 0.05;
// A worker less must leave the stage at most this fraction of the period.
inline constexpr double kKeepUpMargin = 0.8;
// A thread count whose period was this much longer than the best known is not tried again.
inline constexpr double kSlowerBy = 0.03;

// `period_by_threads`: the period measured at each thread count tried so far (the caller adds the
// current window's before calling).
TuneDecision DecideTuning(const TuneLimits& limits, const TuneWindow& window,
                          const std::map<int, double>& period_by_threads);

// The depth the variance asks for: 2 + ceil(2 * cv - 0.5), within [1, max_depth].
int DepthForVariance(double mean_ms, double stddev_ms, int max_depth);

}  // namespace sluice
