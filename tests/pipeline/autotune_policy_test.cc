// The autotuner's policy as a pure function of measurements, and the Autotuner object that feeds
// it (windows, the memory budget, calls from the cpu stage's and the consumer's threads at once).
// Needs only pipeline/autotune_policy and pipeline/autotuner: a TSan build of this file alone is
// quick.
#include <gtest/gtest.h>

#include <atomic>
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>
#include <vector>

#include "pipeline/autotune_policy.h"
#include "pipeline/autotuner.h"

namespace sluice {
namespace {

TuneLimits Limits(int max_threads, bool threads = true, bool depth = false, int default_threads = 2) {
  TuneLimits l;
  l.tune_threads = threads;
  l.tune_depth = depth;
  l.default_threads = default_threads;
  l.max_threads = max_threads;
  l.max_depth = 4;
  l.fixed_depth = 2;
  return l;
}

TuneWindow Window(int threads, double stage_ms, double period_ms, double wait_ms) {
  TuneWindow w;
  w.threads = threads;
  w.depth = 2;
  w.batches = 8;
  w.stage_ms = stage_ms;
  w.period_ms = period_ms;
  w.wait_ms = wait_ms;
  return w;
}

// A machine for the search: the consumer's rate (batches/s) and wait fraction at each count.
struct Machine {
  std::map<int, double> rate;
  double wait_fraction = 0.3;  // producer-bound unless set
};

// Feeds `steps` steps' windows measured on `m` (window i at the count the search asked for, its
// rate from `m`, or from `override_rate(i)` when that returns > 0) and returns the count of each
// window.
template <class F>
std::vector<int> Feed(const TuneLimits& l, ThreadSearch& s, const Machine& m, int steps, F override_rate) {
  const int windows = steps * kWindowsPerStep;
  std::vector<int> counts;
  int threads = s.threads;
  for (int i = 0; i < windows; ++i) {
    counts.push_back(threads);
    const double forced = override_rate(i);
    const double rate = forced > 0 ? forced : m.rate.at(threads);
    const double period = 1000.0 / rate;
    std::string reason;
    const int next = StepThreadSearch(l, Window(threads, period / 2, period, m.wait_fraction * period), s, reason);
    if (next != threads) EXPECT_FALSE(reason.empty());
    threads = next;
  }
  return counts;
}
std::vector<int> Feed(const TuneLimits& l, ThreadSearch& s, const Machine& m, int steps) {
  return Feed(l, s, m, steps, [](int) { return 0.0; });
}

// The count of every window when the search measures `counts`, one step each.
std::vector<int> Steps(std::initializer_list<int> counts) {
  std::vector<int> out;
  for (int c : counts) out.insert(out.end(), kWindowsPerStep, c);
  return out;
}

TEST(AutotunePolicy, StartsAtTheDefaultAndClimbsAboveTheCoresWhileFaster) {
  // 2 CPUs (default 2, up to 4): 3 and 4 threads are each faster (decode threads block on I/O).
  const TuneLimits l = Limits(4);
  ThreadSearch s = StartThreadSearch(l);
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kBaseline);
  const auto counts = Feed(l, s, {{{2, 10.0}, {3, 12.0}, {4, 13.0}}}, 4);
  // kWindowsPerStep windows per count: the default, then one thread more while it is faster.
  EXPECT_EQ(counts, Steps({2, 3, 4, 4}));
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  EXPECT_EQ(s.threads, 4);
  EXPECT_EQ(s.best_threads, 4);
  EXPECT_DOUBLE_EQ(s.best_rate, 13.0);
  ASSERT_EQ(s.trials.size(), 3u);  // settled checks are not trials
  EXPECT_EQ(s.trials[0].threads, 2);
  EXPECT_TRUE(s.trials[0].kept);
  EXPECT_EQ(s.trials[1].threads, 3);
  EXPECT_DOUBLE_EQ(s.trials[1].batches_per_s, 12.0);
  EXPECT_TRUE(s.trials[1].kept);
  EXPECT_EQ(s.trials[2].threads, 4);
  EXPECT_TRUE(s.trials[2].kept);
}

TEST(AutotunePolicy, StopsAtTheFirstCountThatIsNotFasterByTheThreshold) {
  const TuneLimits l = Limits(8);
  ThreadSearch s = StartThreadSearch(l);
  // 4 threads gain 1% over 3: within noise, not kept; 5 threads are never measured.
  const auto counts = Feed(l, s, {{{2, 10.0}, {3, 12.0}, {4, 12.12}, {5, 20.0}}}, 5);
  EXPECT_EQ(counts, Steps({2, 3, 4, 3, 3}));
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  EXPECT_EQ(s.threads, 3);
  ASSERT_EQ(s.trials.size(), 3u);
  EXPECT_FALSE(s.trials[2].kept);
}

TEST(AutotunePolicy, ReturnsToTheDefaultWhenNothingBeatsIt) {
  // Producer-bound, and one thread more is slower: back to the default, nothing below is tried.
  const TuneLimits l = Limits(4);
  ThreadSearch s = StartThreadSearch(l);
  const auto counts = Feed(l, s, {{{1, 6.0}, {2, 10.0}, {3, 9.5}}}, 3);
  EXPECT_EQ(counts, Steps({2, 3, 2}));
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.best_threads, 2);
  EXPECT_DOUBLE_EQ(s.best_rate, 10.0);
}

TEST(AutotunePolicy, MeasuresBelowTheDefaultOnlyWhenTheConsumerIsTheBottleneck) {
  const TuneLimits l = Limits(4);
  // The consumer hardly waits and one worker less leaves it a core: 1 thread is faster.
  Machine consumer_bound{{{1, 10.5}, {2, 10.0}, {3, 10.0}}, 0.01};
  ThreadSearch s = StartThreadSearch(l);
  auto counts = Feed(l, s, consumer_bound, 4);
  EXPECT_EQ(counts, Steps({2, 3, 1, 1}));
  EXPECT_EQ(s.threads, 1);
  ASSERT_EQ(s.trials.size(), 3u);
  EXPECT_TRUE(s.trials[2].kept);
  // One worker less is slower: back to the default.
  consumer_bound.rate[1] = 9.0;
  s = StartThreadSearch(l);
  counts = Feed(l, s, consumer_bound, 4);
  EXPECT_EQ(counts, Steps({2, 3, 1, 2}));
  EXPECT_EQ(s.threads, 2);
  // A count above the default was kept: nothing below is measured.
  consumer_bound.rate[3] = 11.0;
  consumer_bound.rate[4] = 11.0;
  s = StartThreadSearch(l);
  counts = Feed(l, s, consumer_bound, 4);
  EXPECT_EQ(counts, Steps({2, 3, 4, 3}));
}

TEST(AutotunePolicy, NeverPastTwiceTheCpus) {
  const TuneLimits l = Limits(4);
  ThreadSearch s = StartThreadSearch(l);
  const auto counts = Feed(l, s, {{{2, 10.0}, {3, 20.0}, {4, 40.0}, {5, 80.0}}}, 4);
  EXPECT_EQ(*std::max_element(counts.begin(), counts.end()), 4);
  EXPECT_EQ(s.threads, 4);
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  // One CPU: the baseline, then 2 threads at most.
  const TuneLimits one = Limits(2, true, false, 1);
  s = StartThreadSearch(one);
  EXPECT_EQ(Feed(one, s, {{{1, 10.0}, {2, 30.0}}}, 3), Steps({1, 2, 2}));
}

TEST(AutotunePolicy, TheMedianWindowDecidesNotAnOutlier) {
  const TuneLimits l = Limits(4);
  const Machine m{{{2, 10.0}, {3, 10.0}, {4, 10.0}}};
  // One window at 3 threads runs twice as fast (another process paused): the median of the
  // step's windows is 10, not kept.
  ThreadSearch s = StartThreadSearch(l);
  auto counts = Feed(l, s, m, 3, [](int i) { return i == kWindowsPerStep + 1 ? 20.0 : 0.0; });
  EXPECT_EQ(counts, Steps({2, 3, 2}));
  EXPECT_DOUBLE_EQ(s.trials[1].batches_per_s, 10.0);
  // One window of the baseline runs at half speed: the baseline is still 10, and 3 threads at
  // 10.2 (2%) do not beat it.
  Machine slight = m;
  slight.rate[3] = 10.2;
  s = StartThreadSearch(l);
  counts = Feed(l, s, slight, 3, [](int i) { return i == 1 ? 5.0 : 0.0; });
  EXPECT_DOUBLE_EQ(s.trials[0].batches_per_s, 10.0);
  EXPECT_EQ(s.threads, 2);
}

TEST(AutotunePolicy, SearchesAgainWhenTheWorkloadChanges) {
  const TuneLimits l = Limits(4);
  ThreadSearch s = StartThreadSearch(l);
  Feed(l, s, {{{2, 10.0}, {3, 12.0}, {4, 11.0}}}, 4);
  ASSERT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  ASSERT_EQ(s.threads, 3);
  // Within kWorkloadChange of the settled rate: stays.
  Feed(l, s, {{{3, 12.0 * (1 - kWorkloadChange) + 0.1}}}, 2);
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  EXPECT_EQ(s.searches, 1);
  // The consumer became slow: every count runs at 4 batches/s. A new search from the default,
  // which (nothing beating it) it settles on.
  const Machine slow{{{1, 4.0}, {2, 4.0}, {3, 4.0}, {4, 4.0}}, 0.0};
  const auto counts = Feed(l, s, slow, 5);
  EXPECT_EQ(counts, Steps({3, 2, 3, 1, 2}));
  EXPECT_EQ(s.searches, 2);
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.phase, ThreadSearch::Phase::kSettled);
  EXPECT_EQ(s.trials.size(), 6u);  // both searches' steps
}

TEST(AutotunePolicy, StepsScaleWithTheCpus) {
  TuneLimits l = Limits(32, true, false, 16);
  EXPECT_EQ(ThreadStepSize(l), 4);
  ThreadSearch s = StartThreadSearch(l);
  const auto counts = Feed(l, s, {{{16, 10.0}, {20, 12.0}, {24, 12.1}}}, 3);
  EXPECT_EQ(counts, Steps({16, 20, 24}));
  EXPECT_EQ(s.threads, 20);
  EXPECT_EQ(ThreadStepSize(Limits(4, true, false, 2)), 1);
}

TEST(AutotunePolicy, DecisionsExplainTheRatesAndTheDepthWaitsForTheStep) {
  TuneLimits l = Limits(4, true, /*depth=*/true);
  ThreadSearch s = StartThreadSearch(l);
  TuneWindow w = Window(2, 50, 100, 30);
  w.stage_stddev_ms = 40;  // cv 0.8: depth 4, but only when the step ends
  TuneDecision d;
  for (int i = 0; i + 1 < kWindowsPerStep; ++i) {
    d = DecideTuning(l, w, s);
    EXPECT_FALSE(d.step_ended);
    EXPECT_EQ(d.depth, 2);
    EXPECT_EQ(d.threads, 2);
    EXPECT_TRUE(d.reason.empty());
  }
  d = DecideTuning(l, w, s);
  EXPECT_TRUE(d.step_ended);
  EXPECT_EQ(d.threads, 3);
  EXPECT_EQ(d.depth, 4);
  EXPECT_NE(d.reason.find("2 threads: 10.00 batches/s (the default)"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("measuring 3 threads"), std::string::npos) << d.reason;
  w = Window(3, 50, 100 / 1.01, 30);
  w.depth = 4;
  for (int i = 0; i < kWindowsPerStep; ++i) d = DecideTuning(l, w, s);
  EXPECT_EQ(d.threads, 2);
  EXPECT_NE(d.reason.find("3 threads: 10.10 batches/s, not 3% above the best (2 threads, 10.00 batches/s)"), std::string::npos)
      << d.reason;
  EXPECT_NE(d.reason.find("settled on 2 threads"), std::string::npos) << d.reason;
}

TEST(AutotunePolicy, LeavesThreadsAloneWhenNotTuningThem) {
  ThreadSearch s = StartThreadSearch(Limits(4, false));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(DecideTuning(Limits(4, /*threads=*/false), Window(3, 40, 40, 30), s).threads, 3);
  EXPECT_TRUE(s.trials.empty());
}

TEST(AutotunePolicy, DeeperQueuesWhenStageTimesVary) {
  EXPECT_EQ(DepthForVariance(50, 0, 4), 2);
  EXPECT_EQ(DepthForVariance(50, 5, 4), 2);    // cv 0.1
  EXPECT_EQ(DepthForVariance(50, 20, 4), 3);   // cv 0.4
  EXPECT_EQ(DepthForVariance(50, 40, 4), 4);   // cv 0.8
  EXPECT_EQ(DepthForVariance(50, 200, 4), 4);  // capped at the ring
  EXPECT_EQ(DepthForVariance(50, 40, 1), 1);
  TuneWindow w = Window(2, 50, 50, 30);
  w.stage_stddev_ms = 20;
  ThreadSearch s;
  TuneDecision d;
  for (int i = 0; i < kWindowsPerStep; ++i) {
    d = DecideTuning(Limits(2, false, /*depth=*/true), w, s);
    EXPECT_EQ(d.depth, i + 1 < kWindowsPerStep ? 2 : 3);  // decided when the step ends
  }
  EXPECT_EQ(d.depth, 3);
  EXPECT_NE(d.reason.find("cv 0.40"), std::string::npos) << d.reason;
}

TEST(AutotunePolicy, MemoryBudgetLowersTheDepthOrReportsThatOneBatchDoesNotFit) {
  TuneLimits l = Limits(2, false, false);
  l.fixed_depth = 4;
  TuneWindow w = Window(2, 50, 50, 0);
  w.depth = 4;
  w.slot_bytes = 100;
  w.output_bytes = 30;
  l.memory_budget = 260;  // 2 slots (200) and the held outputs (30)
  ThreadSearch s;
  TuneDecision d = DecideTuning(l, w, s);
  EXPECT_TRUE(d.fits);
  EXPECT_EQ(d.depth, 2);
  EXPECT_EQ(d.needed_bytes, 230u);
  EXPECT_NE(d.reason.find("memory_budget"), std::string::npos);
  l.memory_budget = 1000;
  EXPECT_EQ(DecideTuning(l, w, s).depth, 4);
  l.memory_budget = 129;
  d = DecideTuning(l, w, s);
  EXPECT_FALSE(d.fits);
  EXPECT_EQ(d.needed_bytes, 130u);
}

TEST(Autotuner, BudgetStartsAtDepthOneThenFitsAndFailsWithTheNumbers) {
  TuneLimits l = Limits(2, false, false);
  l.fixed_depth = 3;
  l.max_depth = 3;
  l.memory_budget = 1000;
  EXPECT_EQ(Autotuner::InitialDepth(l), 1);
  Autotuner t(l, 2, 1);
  EXPECT_FALSE(t.OnCpuBatch(5, 300, 100));
  EXPECT_EQ(t.Poll().depth, 3);  // 3 * 300 + 100 fits
  EXPECT_FALSE(t.OnCpuBatch(5, 400, 100));
  EXPECT_EQ(t.Poll().depth, 2);  // a slot grew: 2 * 400 + 100
  const auto err = t.OnCpuBatch(5, 950, 100);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("1050 bytes"), std::string::npos) << *err;
  EXPECT_NE(err->find("memory_budget of 1000 bytes"), std::string::npos) << *err;
  EXPECT_EQ(t.Snapshot().changes.size(), 3u);
}

// The cpu stage's calls (OnCpuBatch, Poll) and the consumer's (OnTake) and Snapshot from a third
// thread at once (for TSan); the windows still end in decisions.
TEST(Autotuner, CallsFromTheStageAndTheConsumerAtOnce) {
  TuneLimits l = Limits(4, true, true);
  l.memory_budget = 1 << 30;
  Autotuner t(l, 2, Autotuner::InitialDepth(l));
  std::atomic<bool> done{false};
  std::thread consumer([&] {
    for (int i = 0; i < 400; ++i) {
      t.OnTake(i % 3 == 0 ? 2.0 : 0.0);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    done = true;
  });
  std::thread reader([&] {
    while (!done.load()) (void)t.Snapshot();
  });
  int polls = 0;
  while (!done.load()) {
    EXPECT_FALSE(t.OnCpuBatch(1.0 + (polls % 5), 1000, 100));
    const Autotuner::Setting s = t.Poll();
    EXPECT_TRUE(s.threads >= 1 && s.threads <= 4 && s.depth >= 1 && s.depth <= 4);
    ++polls;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  consumer.join();
  reader.join();
  const AutotuneStatistics a = t.Snapshot();
  EXPECT_GT(a.window_batches, 0);
  EXPECT_GE(a.changes.size(), 1u);
}

}  // namespace
}  // namespace sluice
