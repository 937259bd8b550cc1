// The autotuner: its policy as a pure function of measurements, and the executor resizing its
// thread pool between batches while the other stage runs loops on it (run under TSan by
// make test-tsan), with batches that do not depend on the thread count.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "pipeline/autotune_policy.h"
#include "pipeline/autotuner.h"
#include "pipeline/executor.h"
#include "pipeline/graph.h"
#include "pipeline_test_util.h"

namespace sluice {
namespace {

using testing::Spec;

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

// counter -> sleep (cpu stage) | copy (device stage): both stages run loops on the pool.
Graph SleepGraph(double ms) {
  std::vector<OpSpec> specs;
  specs.push_back(Spec("testing.counter", "counter", {}, {{"shape", std::vector<int64_t>{4}}}));
  specs.push_back(Spec("random.uniform", "uniform", {}, {{"range", std::vector<double>{0.0, 50.0}}}));
  specs.push_back(Spec("testing.add_constant", "add", {specs[0].outputs[0]}, {}, {{"value", specs[1].outputs[0]}}));
  specs.push_back(Spec("testing.sleep", "sleep", {specs[2].outputs[0]}, {{"ms", ms}}));
  specs.push_back(Spec("copy", "copy", {specs[3].outputs[0]}));
  return Graph(specs, {specs[4].outputs[0]});
}

ExecutorConfig SleepConfig(bool auto_threads, int threads) {
  ExecutorConfig c;
  c.options.batch_size = 8;
  c.options.num_threads = threads;
  c.options.auto_threads = auto_threads;
  c.options.cpu_queue_depth = 2;
  c.options.gpu_queue_depth = 2;
  c.seed = 5;
  c.max_threads = auto_threads ? 4 : 0;
  c.device_stage_from = 4;  // copy runs in the device stage
  return c;
}

std::vector<uint8_t> Bytes(const Batch& b) {
  std::vector<uint8_t> out;
  for (int i = 0; i < b.num_samples(); ++i) {
    const auto* d = static_cast<const uint8_t*>(b.data(i));
    out.insert(out.end(), d, d + b.nbytes(i));
  }
  return out;
}

// Batches taken as Pipeline::Run does; the consumer spends consumer_ms(it) on each.
template <class F>
std::vector<std::vector<uint8_t>> Consume(Executor& ex, int iterations, F consumer_ms) {
  std::vector<std::vector<uint8_t>> all;
  for (int i = 0; i < ex.prefetch_depth(); ++i) ex.Schedule();
  for (int it = 0; it < iterations; ++it) {
    if (it > 0) ex.Schedule();
    ex.Release();
    all.push_back(Bytes(ex.TakeNext()[0]));
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(consumer_ms(it)));
  }
  ex.Release();
  return all;
}

TEST(Autotuner, ResizesThePoolUnderLoadAndKeepsTheBatches) {
  constexpr int kSlow = 60;  // batches with a slow consumer, then as many with a fast one
  // 1 ms per sample: 8 ms of stage at one thread; the consumer first spends 30 ms per batch.
  auto consumer = [](int it) { return it < kSlow ? 30.0 : 0.0; };
  Executor tuned(SleepConfig(true, 1), SleepGraph(1.0));
  const auto got = Consume(tuned, 2 * kSlow, consumer);
  Executor fixed(SleepConfig(false, 3), SleepGraph(1.0));
  EXPECT_EQ(got, Consume(fixed, 2 * kSlow, [](int) { return 0.0; }));

  const AutotuneStatistics a = tuned.Statistics().autotune;
  ASSERT_TRUE(a.enabled);
  EXPECT_EQ(a.max_threads, 4);
  ASSERT_GE(a.changes.size(), 2u);
  EXPECT_EQ(a.changes[0].threads, 4);  // every CPU to start
  // The slow consumer made it drop threads; the fast one made it add some back.
  int lowest = 4, lowest_at = 0;
  for (size_t i = 0; i < a.changes.size(); ++i)
    if (a.changes[i].threads < lowest) lowest = a.changes[i].threads, lowest_at = static_cast<int>(i);
  EXPECT_LT(lowest, 4);
  bool grew = false;
  for (size_t i = static_cast<size_t>(lowest_at) + 1; i < a.changes.size(); ++i)
    grew = grew || a.changes[i].threads > lowest;
  EXPECT_TRUE(grew) << "threads now " << a.threads;
}

}  // namespace
}  // namespace sluice
