#include "pipeline/autotuner.h"

#include <algorithm>
#include <cmath>

namespace sluice {

Autotuner::Autotuner(const TuneLimits& limits, int threads, int depth)
    : limits_(limits),
      threads_(threads),
      depth_(depth),
      wanted_depth_(std::min(2, limits.max_depth)),
      search_(StartThreadSearch(limits)) {
  std::lock_guard lk(mu_);
  std::string why;
  if (limits_.tune_threads)
    why = std::to_string(threads) + " threads: the default (every available CPU), measured first; then up to " +
          std::to_string(limits_.max_threads);
  if (limits_.memory_budget > 0)
    why += (why.empty() ? "" : "; ") + std::string("depth 1 until a batch shows its size (memory_budget)");
  else if (limits_.tune_depth)
    why += (why.empty() ? "" : "; ") + std::string("depth ") + std::to_string(depth) + " to start";
  Record(why);
}

int Autotuner::InitialDepth(const TuneLimits& limits) {
  if (limits.memory_budget > 0) return 1;
  return limits.tune_depth ? std::min(2, limits.max_depth) : std::clamp(limits.fixed_depth, 1, limits.max_depth);
}

void Autotuner::Record(const std::string& reason) {
  if (changes_.size() >= kMaxChanges) changes_.erase(changes_.begin() + 1);  // keep the initial choice
  changes_.push_back({taken_, threads_, depth_, reason});
}

std::optional<std::string> Autotuner::OnCpuBatch(double stage_ms, size_t slot_bytes, size_t output_bytes) {
  std::lock_guard lk(mu_);
  stage_ms_.push_back(stage_ms);
  ++window_cpu_batches_;
  slot_bytes_ = std::max(slot_bytes_, slot_bytes);
  output_bytes_ = std::max(output_bytes_, output_bytes);
  if (limits_.memory_budget == 0) return std::nullopt;
  // The budget, at once: the policy with this window's sizes and the current setting.
  TuneLimits budget_only = limits_;
  budget_only.tune_threads = false;
  budget_only.tune_depth = false;
  // The depth the tuner wants (or the user's), which the budget may lower.
  budget_only.fixed_depth = limits_.tune_depth ? wanted_depth_ : limits_.fixed_depth;
  TuneWindow w;
  w.threads = threads_;
  w.depth = depth_;
  w.slot_bytes = slot_bytes_;
  w.output_bytes = output_bytes_;
  ThreadSearch unused;
  const TuneDecision d = DecideTuning(budget_only, w, unused);
  last_decision_.needed_bytes = d.needed_bytes;
  if (!d.fits)
    return "one batch needs " + std::to_string(d.needed_bytes) + " bytes (a slot of " + std::to_string(slot_bytes_) +
           " bytes of buffers and " + std::to_string(output_bytes_) +
           " bytes of outputs held by the consumer while the next batch is made), more than the memory_budget of " +
           std::to_string(limits_.memory_budget) + " bytes: raise memory_budget or lower batch_size";
  if (d.depth != depth_) {
    depth_ = d.depth;
    Record(d.reason.empty() ? "memory_budget" : d.reason);
  }
  return std::nullopt;
}

void Autotuner::OnTake(double wait_ms) {
  std::lock_guard lk(mu_);
  const auto now = Clock::now();
  ++taken_;
  const bool measured = skip_takes_ == 0 && last_take_;
  if (skip_takes_ > 0) --skip_takes_;
  if (measured) {
    ++window_takes_;
    window_period_sum_ += std::chrono::duration<double, std::milli>(now - *last_take_).count();
    window_wait_sum_ += wait_ms;
  }
  last_take_ = now;
}

Autotuner::Setting Autotuner::Poll() {
  std::lock_guard lk(mu_);
  if (!(limits_.tune_threads || limits_.tune_depth) || window_takes_ < kWindowTakes ||
      window_cpu_batches_ < 2)
    return {threads_, depth_};
  TuneWindow w;
  w.threads = threads_;
  w.depth = depth_;
  w.batches = window_takes_;
  double sum = 0, sq = 0;
  for (double v : stage_ms_) sum += v;
  w.stage_ms = sum / static_cast<double>(stage_ms_.size());
  for (double v : stage_ms_) sq += (v - w.stage_ms) * (v - w.stage_ms);
  w.stage_stddev_ms = std::sqrt(sq / static_cast<double>(stage_ms_.size() - 1));
  w.period_ms = window_period_sum_ / window_takes_;
  w.wait_ms = window_wait_sum_ / window_takes_;
  w.slot_bytes = slot_bytes_;
  w.output_bytes = output_bytes_;
  TuneLimits limits = limits_;
  limits.fixed_depth = depth_;
  const TuneDecision d = DecideTuning(limits, w, search_);
  if (d.step_ended) wanted_depth_ = DepthForVariance(w.stage_ms, w.stage_stddev_ms, limits_.max_depth);
  last_window_ = w;
  last_decision_ = d;
  if (d.step_ended) stage_ms_.clear();
  window_takes_ = 0;
  window_cpu_batches_ = 0;
  window_period_sum_ = window_wait_sum_ = 0;
  // A failed fit is reported by OnCpuBatch; here the depth stays what fits.
  if (d.fits && (d.threads != threads_ || d.depth != depth_)) {
    threads_ = d.threads;
    depth_ = d.depth;
    skip_takes_ = std::max(kSettleTakes, depth_);  // the ring may hold batches made at the old setting
    Record(d.reason);
  } else if (!d.reason.empty()) {
    Record(d.reason);  // a step ended without a change (settled where it was measured)
  }
  return {threads_, depth_};
}

AutotuneStatistics Autotuner::Snapshot() const {
  std::lock_guard lk(mu_);
  AutotuneStatistics s;
  s.enabled = true;
  s.auto_threads = limits_.tune_threads;
  s.auto_queue_depth = limits_.tune_depth;
  s.memory_budget = limits_.memory_budget;
  s.threads = threads_;
  s.max_threads = limits_.max_threads;
  s.depth = depth_;
  s.max_depth = limits_.max_depth;
  s.window_batches = last_window_.batches;
  s.stage_ms = last_window_.stage_ms;
  s.stage_stddev_ms = last_window_.stage_stddev_ms;
  s.period_ms = last_window_.period_ms;
  s.wait_ms = last_window_.wait_ms;
  s.slot_bytes = slot_bytes_;
  s.output_bytes = output_bytes_;
  s.needed_bytes = static_cast<size_t>(depth_) * slot_bytes_ + output_bytes_;
  s.changes = changes_;
  s.default_threads = StartThreadSearch(limits_).threads;
  s.search_phase = limits_.tune_threads ? PhaseName(search_.phase) : "";
  s.searches = search_.searches;
  s.best_threads = search_.best_threads;
  s.best_batches_per_s = search_.best_rate;
  for (const ThreadTrial& t : search_.trials) s.trials.push_back({t.threads, t.batches_per_s, t.wait_fraction, t.kept});
  return s;
}

}  // namespace sluice
