#include "pipeline/autotune_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sluice {
namespace {

std::string Rate(double batches_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f batches/s", batches_per_s);
  return buf;
}

std::string Threads(int n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The median window's index (for the wait that goes with the median rate).
size_t MedianIndex(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  return idx[idx.size() / 2];
}

void AddTrial(ThreadSearch& s, const ThreadTrial& t) {
  if (s.trials.size() >= kMaxTrials) s.trials.erase(s.trials.begin());
  s.trials.push_back(t);
}

// The climb or the descent is over: settle on the best count.
int Settle(ThreadSearch& s, std::string& reason) {
  s.phase = ThreadSearch::Phase::kSettled;
  reason += "; settled on " + Threads(s.best_threads) + " (" + Rate(s.best_rate) + ")";
  s.threads = s.best_threads;
  return s.threads;
}

// After the baseline or a step up that was not kept: measure below when the consumer is the
// bottleneck at the best count and nothing above it was kept; settle otherwise.
int DownOrSettle(const TuneLimits& limits, ThreadSearch& s, std::string& reason) {
  const int down = s.best_threads - ThreadStepSize(limits);
  if (s.best_threads == StartThreadSearch(limits).threads && down >= 1 && s.best_wait_fraction < kProducerBoundWait) {
    s.phase = ThreadSearch::Phase::kDown;
    s.threads = down;
    reason += "; the consumer hardly waits: measuring " + Threads(down);
    return down;
  }
  return Settle(s, reason);
}

}  // namespace

const char* PhaseName(ThreadSearch::Phase phase) {
  switch (phase) {
    case ThreadSearch::Phase::kBaseline: return "baseline";
    case ThreadSearch::Phase::kUp: return "up";
    case ThreadSearch::Phase::kDown: return "down";
    case ThreadSearch::Phase::kSettled: return "settled";
  }
  return "?";
}

int ThreadStepSize(const TuneLimits& limits) { return std::max(1, limits.default_threads / 4); }

ThreadSearch StartThreadSearch(const TuneLimits& limits) {
  ThreadSearch s;
  s.threads = s.best_threads = std::clamp(limits.default_threads, 1, std::max(1, limits.max_threads));
  return s;
}

int StepThreadSearch(const TuneLimits& limits, const TuneWindow& w, ThreadSearch& s, std::string& reason) {
  if (w.batches == 0 || w.period_ms <= 0) return s.threads;
  s.window_rates.push_back(1000.0 / w.period_ms);
  s.window_waits.push_back(std::clamp(w.wait_ms / w.period_ms, 0.0, 1.0));
  if (static_cast<int>(s.window_rates.size()) < kWindowsPerStep) return s.threads;
  ThreadTrial t;
  t.threads = s.threads;
  t.batches_per_s = Median(s.window_rates);
  t.wait_fraction = s.window_waits[MedianIndex(s.window_rates)];
  s.window_rates.clear();
  s.window_waits.clear();
  ++s.steps;
  const int step = ThreadStepSize(limits);
  const std::string measured = Threads(t.threads) + ": " + Rate(t.batches_per_s);
  switch (s.phase) {
    case ThreadSearch::Phase::kBaseline: {
      t.kept = true;
      s.best_threads = t.threads;
      s.best_rate = t.batches_per_s;
      s.best_wait_fraction = t.wait_fraction;
      AddTrial(s, t);
      reason = measured + " (the default)";
      const int up = t.threads + step;
      if (up <= limits.max_threads) {
        s.phase = ThreadSearch::Phase::kUp;
        s.threads = up;
        reason += "; measuring " + Threads(up);
        return up;
      }
      return DownOrSettle(limits, s, reason);
    }
    case ThreadSearch::Phase::kUp:
    case ThreadSearch::Phase::kDown: {
      const bool up = s.phase == ThreadSearch::Phase::kUp;
      t.kept = t.batches_per_s > s.best_rate * (1 + kMinGain);
      AddTrial(s, t);
      if (t.kept) {
        reason = measured + ", above the best (" + Threads(s.best_threads) + ", " + Rate(s.best_rate) + "): kept";
        s.best_threads = t.threads;
        s.best_rate = t.batches_per_s;
        s.best_wait_fraction = t.wait_fraction;
        const int next = up ? t.threads + step : t.threads - step;
        if (up ? next <= limits.max_threads : next >= 1) {
          s.threads = next;
          reason += "; measuring " + Threads(next);
          return next;
        }
        return Settle(s, reason);
      }
      reason = measured + ", not " + std::to_string(static_cast<int>(kMinGain * 100)) + "% above the best (" +
               Threads(s.best_threads) + ", " + Rate(s.best_rate) + ")";
      return up ? DownOrSettle(limits, s, reason) : Settle(s, reason);
    }
    case ThreadSearch::Phase::kSettled: {
      if (std::abs(t.batches_per_s - s.best_rate) <= kWorkloadChange * s.best_rate) return s.threads;
      reason = measured + " against " + Rate(s.best_rate) +
               " when it settled: the workload changed; searching again from " + Threads(limits.default_threads);
      const std::vector<ThreadTrial> trials = std::move(s.trials);
      const int64_t steps = s.steps;
      const int searches = s.searches + 1;
      s = StartThreadSearch(limits);
      s.trials = trials;
      s.steps = steps;
      s.searches = searches;
      return s.threads;
    }
  }
  return s.threads;
}

int DepthForVariance(double mean_ms, double stddev_ms, int max_depth) {
  const double cv = mean_ms > 0 ? stddev_ms / mean_ms : 0.0;
  const int extra = std::max(0, static_cast<int>(std::ceil(2 * cv - 0.5)));
  return std::clamp(2 + extra, 1, std::max(1, max_depth));
}

TuneDecision DecideTuning(const TuneLimits& limits, const TuneWindow& w, ThreadSearch& search) {
  TuneDecision d;
  std::string why_threads;
  d.threads = w.threads;
  if (limits.tune_threads) {
    const int64_t steps = search.steps;
    d.threads = StepThreadSearch(limits, w, search, why_threads);
    d.step_ended = search.steps != steps;
  } else if (++search.depth_windows >= kWindowsPerStep) {
    search.depth_windows = 0;
    d.step_ended = true;
  }
  // The depth changes only between steps: a step is measured at one depth.
  int depth = limits.tune_depth && d.step_ended ? DepthForVariance(w.stage_ms, w.stage_stddev_ms, limits.max_depth)
              : limits.tune_depth                ? std::clamp(w.depth, 1, limits.max_depth)
                                                 : std::clamp(limits.fixed_depth, 1, limits.max_depth);
  std::string why_depth;
  if (limits.tune_depth && depth != w.depth) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "stage time %.1f +- %.1f ms (cv %.2f): depth %d", w.stage_ms, w.stage_stddev_ms,
                  w.stage_ms > 0 ? w.stage_stddev_ms / w.stage_ms : 0.0, depth);
    why_depth = buf;
  }
  if (limits.memory_budget > 0 && w.slot_bytes > 0) {
    const size_t one = w.slot_bytes + w.output_bytes;
    if (one > limits.memory_budget) {
      d.fits = false;
      d.depth = 1;
      d.needed_bytes = one;
      d.reason = "one batch needs " + std::to_string(one) + " bytes, memory_budget is " +
                 std::to_string(limits.memory_budget);
      return d;
    }
    const int fit = static_cast<int>((limits.memory_budget - w.output_bytes) / w.slot_bytes);
    if (fit < depth) {
      depth = fit;
      why_depth = "memory_budget " + std::to_string(limits.memory_budget) + " bytes holds " + std::to_string(fit) +
                  " slot(s) of " + std::to_string(w.slot_bytes) + " bytes and the held outputs (" +
                  std::to_string(w.output_bytes) + " bytes)";
    }
  }
  d.depth = depth;
  d.needed_bytes = static_cast<size_t>(depth) * w.slot_bytes + w.output_bytes;
  if (depth == w.depth) why_depth.clear();
  d.reason = why_threads;
  if (!why_depth.empty()) d.reason += (d.reason.empty() ? "" : "; ") + why_depth;
  return d;
}

}  // namespace sluice
