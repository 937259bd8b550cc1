// The executor's two-stage mode (a cpu stage and a device stage, each with its own thread and
// ring), exercised on CPU-only graphs split with ExecutorConfig::device_stage_from: the same
// rings, hand-offs, errors and shutdown that a pipeline with mixed/gpu operators uses.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "pipeline/executor.h"
#include "pipeline/graph.h"
#include "pipeline_test_util.h"

namespace sluice {
namespace {

using testing::Spec;

using Clock = std::chrono::steady_clock;

// counter -> add_constant(value = uniform) -> copy; outputs: the copy (last stage) and the
// counter (first stage, like a label next to a GPU image). Nodes: counter, uniform, add, copy.
Graph RandomGraph(std::vector<OpSpec> extra = {}, std::vector<std::string> outputs = {}) {
  std::vector<OpSpec> specs;
  specs.push_back(Spec("testing.counter", "counter", {}, {{"shape", std::vector<int64_t>{2}}}));
  specs.push_back(Spec("random.uniform", "uniform", {}, {{"range", std::vector<double>{0.0, 50.0}}}));
  specs.push_back(Spec("testing.add_constant", "add", {specs[0].outputs[0]}, {}, {{"value", specs[1].outputs[0]}}));
  specs.push_back(Spec("copy", "copy", {specs[2].outputs[0]}));
  if (outputs.empty()) outputs = {specs[3].outputs[0], specs[0].outputs[0]};
  for (auto& s : extra) specs.push_back(std::move(s));
  return Graph(specs, outputs);
}

ExecutorConfig Config(int split, int cpu_depth, int gpu_depth, bool async = true, int threads = 2) {
  ExecutorConfig c;
  c.options.batch_size = 8;
  c.options.num_threads = threads;
  c.seed = 77;
  c.options.exec_async = async;
  c.options.cpu_queue_depth = cpu_depth;
  c.options.gpu_queue_depth = gpu_depth;
  c.device_stage_from = split;
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

// Runs `iterations` batches the way Pipeline::Run does (fill the queues, then one per batch).
std::vector<std::vector<uint8_t>> RunAll(Executor& ex, int iterations) {
  std::vector<std::vector<uint8_t>> all;
  for (int i = 0; i < ex.prefetch_depth(); ++i) ex.Schedule();
  for (int it = 0; it < iterations; ++it) {
    if (it > 0) ex.Schedule();
    for (const Batch& b : ex.TakeNext()) all.push_back(Bytes(b));
    ex.Release();
  }
  return all;
}

TEST(TwoStageExecutor, SameBatchesAsOneStageForEverySplitDepthAndMode) {
  Executor one(Config(-1, 2, 2), RandomGraph());
  EXPECT_EQ(one.prefetch_depth(), 2);
  const auto ref = RunAll(one, 7);
  for (int split : {0, 1, 2, 3}) {
    for (auto [cpu, gpu] : {std::pair{1, 1}, {1, 3}, {3, 1}, {2, 2}}) {
      for (bool async : {true, false}) {
        Executor two(Config(split, cpu, gpu, async), RandomGraph());
        EXPECT_EQ(two.prefetch_depth(), cpu + gpu);
        EXPECT_EQ(two.queue_depth(), gpu);
        EXPECT_EQ(RunAll(two, 7), ref) << "split " << split << " depths " << cpu << "/" << gpu << " async " << async;
      }
    }
  }
}

// The consumer holds every device slot; the cpu stage meanwhile reuses its single slot for later
// batches. The held batches' first-stage outputs (the counter) must not change under them.
TEST(TwoStageExecutor, HeldFirstStageOutputsSurviveTheirSlotsReuse) {
  Executor ex(Config(2, /*cpu=*/1, /*gpu=*/2), RandomGraph());
  for (int i = 0; i < 4; ++i) ex.Schedule();
  auto b0 = ex.TakeNext();
  auto b1 = ex.TakeNext();
  const auto b0_bytes = Bytes(b0[1]), b1_bytes = Bytes(b1[1]);
  // Batch 2's cpu stage runs into the slot that batches 0 and 1 came from.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_THROW(ex.TakeNext(), Error);  // both output buffers are held
  EXPECT_EQ(Bytes(b0[1]), b0_bytes);
  EXPECT_EQ(Bytes(b1[1]), b1_bytes);
  EXPECT_EQ(*static_cast<const int64_t*>(b1[1].data(0)), 8);
  ex.Release();
  auto b2 = ex.TakeNext();
  EXPECT_EQ(*static_cast<const int64_t*>(b2[1].data(0)), 16);
  EXPECT_EQ(Bytes(b1[1]), b1_bytes);
  ex.Release();
  ex.Release();
  auto b3 = ex.TakeNext();
  EXPECT_EQ(*static_cast<const int64_t*>(b3[1].data(7)), 31);
  // A batch kept past its release stays intact too.
  EXPECT_EQ(Bytes(b0[1]), b0_bytes);
}

std::string ErrorOf(Executor& ex) {
  try {
    ex.TakeNext();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TwoStageExecutor, FirstStageErrorArrivesAfterTheBatchesBeforeIt) {
  for (bool async : {true, false}) {
    std::vector<OpSpec> specs;
    specs.push_back(Spec("testing.counter", "counter"));
    specs.push_back(Spec("testing.fail", "fail", {specs[0].outputs[0]},
                         {{"fail_iteration", int64_t{2}}, {"fail_sample", int64_t{3}}}));
    specs.push_back(Spec("copy", "copy", {specs[1].outputs[0]}));
    Executor ex(Config(2, 3, 1, async), Graph(specs, {specs[2].outputs[0]}));
    for (int i = 0; i < 4; ++i) ex.Schedule();
    for (int it = 0; it < 2; ++it) {
      EXPECT_EQ(*static_cast<const int64_t*>(ex.TakeNext()[0].data(0)), it * 8);
      ex.Release();
    }
    const std::string err = ErrorOf(ex);
    EXPECT_NE(err.find("fail"), std::string::npos) << err;
    EXPECT_NE(err.find("injected failure"), std::string::npos) << err;
    // Sticky: the pipeline stays failed.
    EXPECT_NE(ErrorOf(ex).find("injected failure"), std::string::npos);
    EXPECT_THROW(ex.Schedule(), Error);
  }
}

TEST(TwoStageExecutor, DeviceStageErrorNamesTheOperator) {
  std::vector<OpSpec> specs;
  specs.push_back(Spec("testing.counter", "counter"));
  specs.push_back(Spec("copy", "copy", {specs[0].outputs[0]}));
  specs.push_back(Spec("testing.fail", "late_fail", {specs[1].outputs[0]}, {{"fail_iteration", int64_t{1}}}));
  Executor ex(Config(2, 2, 2), Graph(specs, {specs[2].outputs[0]}));
  for (int i = 0; i < 4; ++i) ex.Schedule();
  EXPECT_EQ(*static_cast<const int64_t*>(ex.TakeNext()[0].data(5)), 5);
  ex.Release();
  const std::string err = ErrorOf(ex);
  EXPECT_NE(err.find("late_fail"), std::string::npos) << err;
}

TEST(TwoStageExecutor, DestructionMidRunIsPrompt) {
  std::vector<OpSpec> specs;
  specs.push_back(Spec("testing.counter", "counter"));
  specs.push_back(Spec("testing.sleep", "slow_cpu", {specs[0].outputs[0]}, {{"ms", 20.0}}));
  specs.push_back(Spec("testing.sleep", "slow_device", {specs[1].outputs[0]}, {{"ms", 20.0}}));
  const auto t0 = Clock::now();
  {
    Executor ex(Config(2, 2, 2), Graph(specs, {specs[2].outputs[0]}));
    for (int i = 0; i < 8; ++i) ex.Schedule();
    ex.TakeNext();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 5.0);
}

TEST(TwoStageExecutor, NothingScheduledAndOverHoldingAreErrorsNotHangs) {
  Executor ex(Config(2, 1, 1), RandomGraph());
  EXPECT_THROW(ex.TakeNext(), Error);
  ex.Schedule();
  ex.Schedule();
  ex.TakeNext();
  EXPECT_THROW(ex.TakeNext(), Error);  // the one device slot is held
  ex.Release();
  ex.TakeNext();
  ex.Release();
  EXPECT_THROW(ex.TakeNext(), Error);
  EXPECT_EQ(ex.Statistics().queue_capacity, 1);
  EXPECT_EQ(ex.Statistics().cpu_queue_capacity, 1);
  EXPECT_EQ(ex.Statistics().batches_produced, 2);
}

// Each stage's time per batch is reported apart (the slow stage is the one to look at).
TEST(TwoStageExecutor, StatisticsTimeEachStage) {
  std::vector<OpSpec> specs;
  specs.push_back(Spec("testing.counter", "counter"));
  specs.push_back(Spec("testing.sleep", "slow_cpu", {specs[0].outputs[0]}, {{"ms", 4.0}}));
  specs.push_back(Spec("copy", "device_copy", {specs[1].outputs[0]}));
  ExecutorConfig cfg = Config(2, 2, 2, true, /*threads=*/1);
  Executor ex(cfg, Graph(specs, {specs[2].outputs[0]}));
  RunAll(ex, 3);
  const ExecutorStatistics st = ex.Statistics();
  EXPECT_GE(st.cpu_stage_ms, 8 * 4.0);  // 8 samples of 4 ms on one thread
  EXPECT_GT(st.device_stage_ms, 0.0);
  EXPECT_GE(st.batches_produced, 3);

  Executor one(Config(-1, 2, 2, true, 1), Graph(specs, {specs[2].outputs[0]}));
  RunAll(one, 2);
  EXPECT_GE(one.Statistics().cpu_stage_ms, 8 * 4.0);
  EXPECT_EQ(one.Statistics().device_stage_ms, 0.0);
}

// Checkpoints count batches the consumer took, whichever stage a batch is in when the checkpoint
// is taken; an executor restored from one continues with the same batches.
TEST(TwoStageExecutor, CheckpointsResumeWithTheSameBatches) {
  auto reader_graph = [] {
    std::vector<OpSpec> specs;
    specs.push_back(Spec("readers.file", "Reader", {},
                         {{"files", std::vector<std::string>{std::string(SLUICE_SOURCE_DIR) + "/README.md",
                                                             std::string(SLUICE_SOURCE_DIR) + "/Makefile",
                                                             std::string(SLUICE_SOURCE_DIR) + "/CMakeLists.txt"}},
                          {"random_shuffle", true},
                          {"initial_fill", int64_t{3}}}));
    specs.push_back(Spec("random.uniform", "uniform"));
    specs.push_back(Spec("copy", "copy", {specs[0].outputs[1]}));
    return Graph(specs, {specs[0].outputs[0], specs[2].outputs[0], specs[1].outputs[0]});
  };
  ExecutorConfig cfg = Config(2, 2, 3);
  cfg.options.batch_size = 2;
  cfg.options.enable_checkpointing = true;
  Executor ex(cfg, reader_graph());
  for (int i = 0; i < ex.prefetch_depth(); ++i) ex.Schedule();
  for (int i = 0; i < 3; ++i) {
    ex.TakeNext();
    ex.Release();
    ex.Schedule();
  }
  const PipelineCheckpoint cp = ex.Checkpoint();
  EXPECT_EQ(cp.iteration, 3);
  const auto expected = RunAll(ex, 5);

  Executor restored(cfg, reader_graph());
  restored.Restore(PipelineCheckpoint::Parse(cp.Serialize()));
  EXPECT_EQ(RunAll(restored, 5), expected);
}

}  // namespace
}  // namespace sluice
