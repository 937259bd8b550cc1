// The executor's autotuning: the thread pool resized between batches while the other stage runs
// loops on it (run under TSan by make test-tsan), with batches that do not depend on the thread
// count. The policy and the Autotuner alone: autotune_policy_test.cc.
#include <gtest/gtest.h>

#include <chrono>
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
  constexpr int kSlow = 60;  // batches with a slow consumer, then twice as many with a fast one
  // 1 ms per sample: 8 ms of stage at one thread; the consumer first spends 30 ms per batch.
  auto consumer = [](int it) { return it < kSlow ? 30.0 : 0.0; };
  Executor tuned(SleepConfig(true, 1), SleepGraph(1.0));
  const auto got = Consume(tuned, 3 * kSlow, consumer);
  Executor fixed(SleepConfig(false, 3), SleepGraph(1.0));
  EXPECT_EQ(got, Consume(fixed, 3 * kSlow, [](int) { return 0.0; }));

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
  std::string log;
  for (const auto& c : a.changes) log += std::to_string(c.batch) + ": " + std::to_string(c.threads) + " " + c.reason + "\n";
  EXPECT_TRUE(grew) << "threads now " << a.threads << "\n" << log;
}

}  // namespace
}  // namespace sluice
