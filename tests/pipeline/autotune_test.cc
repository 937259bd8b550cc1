// The executor's autotuning: the thread pool resized between batches while the other stage runs
// loops on it (run under TSan by make test-tsan), with batches that do not depend on the thread
// count. The policy and the Autotuner alone: autotune_policy_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "pipeline/executor.h"
#include "pipeline/graph.h"
#include "pipeline_test_util.h"

namespace sluice {
namespace {

using testing::Spec;

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

// auto_threads: the search starts at `threads` and measures up to 4.
ExecutorConfig SleepConfig(bool auto_threads, int threads) {
  ExecutorConfig c;
  c.options.batch_size = 8;
  c.options.num_threads = threads;
  c.options.auto_threads = auto_threads;
  c.options.cpu_queue_depth = 2;
  c.options.gpu_queue_depth = 2;
  c.seed = 5;
  c.max_threads = auto_threads ? 4 : 0;
  c.auto_start_threads = auto_threads ? threads : 0;
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

std::string Log(const AutotuneStatistics& a) {
  std::string log;
  for (const auto& c : a.changes) log += std::to_string(c.batch) + ": " + std::to_string(c.threads) + " " + c.reason + "\n";
  return log;
}

// The stage sleeps (as decode threads blocked on I/O): every thread more is faster, past the
// default. The search climbs from the default (1) and the batches stay those of a fixed count.
TEST(Autotuner, ClimbsPastTheDefaultWhileFasterAndKeepsTheBatches) {
  // 4 ms per sample: 32 ms of stage at one thread, 16 at two, 8 at four; the consumer is fast.
  Executor tuned(SleepConfig(true, 1), SleepGraph(4.0));
  const auto got = Consume(tuned, 130, [](int) { return 0.0; });
  Executor fixed(SleepConfig(false, 3), SleepGraph(4.0));
  EXPECT_EQ(got, Consume(fixed, 130, [](int) { return 0.0; }));

  const AutotuneStatistics a = tuned.Statistics().autotune;
  ASSERT_TRUE(a.enabled);
  EXPECT_EQ(a.default_threads, 1);
  EXPECT_EQ(a.max_threads, 4);
  ASSERT_GE(a.changes.size(), 2u);
  EXPECT_EQ(a.changes[0].threads, 1);  // the default to start
  ASSERT_GE(a.trials.size(), 2u) << Log(a);
  EXPECT_EQ(a.trials[0].threads, 1);
  EXPECT_TRUE(a.trials[0].kept);
  EXPECT_GT(a.trials[0].batches_per_s, 0);
  // Two threads halve the stage time: kept (far above the threshold, whatever the machine's load).
  EXPECT_EQ(a.trials[1].threads, 2);
  EXPECT_TRUE(a.trials[1].kept) << Log(a);
  EXPECT_GE(a.best_threads, 2) << Log(a);
  EXPECT_GT(a.best_batches_per_s, a.trials[0].batches_per_s);
}

// A slow consumer: no count beats the default by much, and the search never settles on a count
// measured slower than the default.
TEST(Autotuner, NeverSettlesBelowTheDefaultsRate) {
  Executor tuned(SleepConfig(true, 2), SleepGraph(0.5));
  const auto got = Consume(tuned, 110, [](int) { return 15.0; });
  Executor fixed(SleepConfig(false, 1), SleepGraph(0.5));
  EXPECT_EQ(got, Consume(fixed, 110, [](int) { return 0.0; }));
  const AutotuneStatistics a = tuned.Statistics().autotune;
  ASSERT_GE(a.trials.size(), 2u) << Log(a);
  EXPECT_EQ(a.trials[0].threads, 2);
  EXPECT_EQ(a.search_phase, "settled") << Log(a);
  EXPECT_GE(a.best_batches_per_s, a.trials[0].batches_per_s);
  for (const auto& t : a.trials)
    if (t.kept) EXPECT_GE(t.batches_per_s, a.trials[0].batches_per_s);
  EXPECT_EQ(a.threads, a.best_threads);
}

}  // namespace
}  // namespace sluice
