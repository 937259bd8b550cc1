#include "pipeline/autotune_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sluice {
namespace {

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f ms", ms);
  return buf;
}

// The thread count for the next window, and why it changed ("" when it did not).
int DecideThreads(const TuneLimits& limits, const TuneWindow& w, const std::map<int, double>& periods,
                  std::string& reason) {
  const int t = std::clamp(w.threads, 1, limits.max_threads);
  if (w.batches == 0 || w.period_ms <= 0) return t;
  auto period_at = [&](int k) {
    auto it = periods.find(k);
    return it == periods.end() ? -1.0 : it->second;
  };
  const double here = period_at(t) > 0 ? period_at(t) : w.period_ms;
  // Another count measured clearly faster: go back to it.
  int best = t;
  for (const auto& [k, p] : periods)
    if (k >= 1 && k <= limits.max_threads && p > 0 && p < here * (1 - kSlowerBy) && (best == t || p < period_at(best)))
      best = k;
  if (best != t) {
    reason = std::to_string(best) + " threads measured faster (" + Ms(period_at(best)) + " per batch against " +
             Ms(here) + ")";
    return best;
  }
  const bool producer_bound = w.wait_ms > kProducerBoundWait * w.period_ms;
  if (producer_bound) {
    const double up = period_at(t + 1);
    if (t < limits.max_threads && (up < 0 || up < here * (1 - kSlowerBy))) {
      reason = "the consumer waited " + Ms(w.wait_ms) + " of its " + Ms(w.period_ms) +
               " per batch: the cpu stage is the bottleneck, one thread more";
      return t + 1;
    }
    // No more threads to add (or more measured no faster): on a machine other processes share,
    // fewer workers can be faster; one count less is measured once.
    if (t > 1 && period_at(t - 1) < 0) {
      reason = "the cpu stage is the bottleneck at " + std::to_string(t) +
               " threads and more are not faster: measuring one thread less";
      return t - 1;
    }
  } else if (!producer_bound && t > 1) {
    const double predicted = w.stage_ms * t / (t - 1);
    const double down = period_at(t - 1);
    if (predicted <= kKeepUpMargin * w.period_ms && (down < 0 || down <= here * (1 + kSlowerBy))) {
      reason = "the consumer is the bottleneck (" + Ms(w.period_ms) + " per batch, stage " + Ms(w.stage_ms) +
               ", waited " + Ms(w.wait_ms) + "): one thread less";
      return t - 1;
    }
  }
  return t;
}

}  // namespace

int DepthForVariance(double mean_ms, double stddev_ms, int max_depth) {
  const double cv = mean_ms > 0 ? stddev_ms / mean_ms : 0.0;
  const int extra = std::max(0, static_cast<int>(std::ceil(2 * cv - 0.5)));
  return std::clamp(2 + extra, 1, std::max(1, max_depth));
}

TuneDecision DecideTuning(const TuneLimits& limits, const TuneWindow& w, const std::map<int, double>& periods) {
  TuneDecision d;
  std::string why_threads;
  d.threads = limits.tune_threads ? DecideThreads(limits, w, periods, why_threads) : w.threads;
  int depth = limits.tune_depth ? DepthForVariance(w.stage_ms, w.stage_stddev_ms, limits.max_depth)
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
