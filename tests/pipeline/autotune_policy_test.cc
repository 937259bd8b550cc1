// The autotuner's policy as a pure function of measurements, and the Autotuner object that feeds
// it (windows, the memory budget, calls from the cpu stage's and the consumer's threads at once).
// Needs only pipeline/autotune_policy and pipeline/autotuner: a TSan build of this file alone is
// quick.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "pipeline/autotune_policy.h"
#include "pipeline/autotuner.h"

namespace sluice {
namespace {

TuneLimits Limits(int max_threads, bool threads = true, bool depth = false) {
  TuneLimits l;
  l.tune_threads = threads;
  l.tune_depth = depth;
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

TEST(AutotunePolicy, AddsAThreadWhenTheConsumerWaits) {
  // The consumer waits 30 of its 40 ms: the cpu stage is the bottleneck.
  const TuneDecision d = DecideTuning(Limits(4), Window(2, 40, 40, 30), {{2, 40.0}});
  EXPECT_EQ(d.threads, 3);
  EXPECT_NE(d.reason.find("bottleneck"), std::string::npos) << d.reason;
  // Never past the available CPUs: there, one thread less is measured once...
  const TuneDecision probe = DecideTuning(Limits(2), Window(2, 40, 40, 30), {{2, 40.0}});
  EXPECT_EQ(probe.threads, 1);
  EXPECT_NE(probe.reason.find("measuring one thread less"), std::string::npos) << probe.reason;
  // ...and when it was slower, the count stays.
  EXPECT_EQ(DecideTuning(Limits(2), Window(2, 40, 40, 30), {{1, 60.0}, {2, 40.0}}).threads, 2);
}

TEST(AutotunePolicy, RemovesAThreadWhenTheConsumerIsTheBottleneckAndTheStageKeepsUp) {
  // The consumer hardly waits; the stage takes 10 ms of a 50 ms period: one thread less (20 ms) keeps up.
  const TuneDecision d = DecideTuning(Limits(4), Window(2, 10, 50, 0.1), {{2, 50.0}});
  EXPECT_EQ(d.threads, 1);
  EXPECT_NE(d.reason.find("consumer is the bottleneck"), std::string::npos) << d.reason;
  // 30 ms of stage at 2 threads would be 60 ms at 1: more than the period, so it stays.
  EXPECT_EQ(DecideTuning(Limits(4), Window(2, 30, 50, 0.1), {{2, 50.0}}).threads, 2);
}

TEST(AutotunePolicy, DoesNotRetryACountMeasuredSlowerAndReturnsToAFasterOne) {
  // 3 threads were measured slower than 2 now: no step up even though the consumer waits.
  EXPECT_EQ(DecideTuning(Limits(4), Window(2, 40, 40, 30), {{1, 70.0}, {2, 40.0}, {3, 45.0}}).threads, 2);
  // (With 1 thread not measured yet, it is measured once.)
  EXPECT_EQ(DecideTuning(Limits(4), Window(2, 40, 40, 30), {{2, 40.0}, {3, 45.0}}).threads, 1);
  // 1 thread was measured clearly slower: no step down.
  EXPECT_EQ(DecideTuning(Limits(4), Window(2, 10, 50, 0.1), {{1, 60.0}, {2, 50.0}}).threads, 2);
  // At 1 thread, 2 threads were measured clearly faster: back to 2.
  const TuneDecision d = DecideTuning(Limits(4), Window(1, 40, 60, 20), {{1, 60.0}, {2, 50.0}});
  EXPECT_EQ(d.threads, 2);
  EXPECT_NE(d.reason.find("measured faster"), std::string::npos) << d.reason;
}

TEST(AutotunePolicy, LeavesThreadsAloneWhenNotTuningThem) {
  EXPECT_EQ(DecideTuning(Limits(4, /*threads=*/false), Window(2, 40, 40, 30), {{2, 40.0}}).threads, 2);
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
  const TuneDecision d = DecideTuning(Limits(2, false, /*depth=*/true), w, {});
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
  TuneDecision d = DecideTuning(l, w, {});
  EXPECT_TRUE(d.fits);
  EXPECT_EQ(d.depth, 2);
  EXPECT_EQ(d.needed_bytes, 230u);
  EXPECT_NE(d.reason.find("memory_budget"), std::string::npos);
  l.memory_budget = 1000;
  EXPECT_EQ(DecideTuning(l, w, {}).depth, 4);
  l.memory_budget = 129;
  d = DecideTuning(l, w, {});
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
  Autotuner t(l, 4, Autotuner::InitialDepth(l));
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
