#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>

namespace sluice {
namespace {

using Clock = std::chrono::steady_clock;

PipelineOptions Opts(int batch, int threads, int64_t seed = 1234) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = seed;
  return o;
}

std::vector<int64_t> Values(const Batch& b) {
  std::vector<int64_t> v;
  for (int i = 0; i < b.num_samples(); ++i) v.push_back(*static_cast<const int64_t*>(b.data(i)));
  return v;
}

// counter -> copy; returns the pipeline's single output edge.
std::unique_ptr<Pipeline> CounterPipeline(PipelineOptions o) {
  auto p = std::make_unique<Pipeline>(o);
  auto c = p->AddOperator(OperatorDef("testing.counter").Name("counter"))[0];
  auto out = p->AddOperator(OperatorDef("copy").Name("copy").Input(c))[0];
  p->SetOutputs({out});
  p->Build();
  return p;
}

TEST(Executor, RunReturnsBatchesInOrder) {
  auto p = CounterPipeline(Opts(4, 2));
  for (int it = 0; it < 5; ++it) {
    auto out = p->Run();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(Values(out[0]), (std::vector<int64_t>{it * 4, it * 4 + 1, it * 4 + 2, it * 4 + 3}));
    // Source info travels from the source through copy.
    EXPECT_EQ(out[0].source(1).ToString(), "counter:sample-" + std::to_string(it * 4 + 1));
  }
}

// Random values feed a per-sample argument; the result must not depend on the thread count.
std::vector<std::vector<uint8_t>> RandomRun(int threads, int64_t seed, bool async = true, bool pipelined = true) {
  PipelineOptions o = Opts(16, threads, seed);
  o.exec_async = async;
  o.exec_pipelined = pipelined;
  Pipeline p(o);
  auto src = p.AddOperator(OperatorDef("testing.counter").Arg("shape", std::vector<int64_t>{3}))[0];
  auto u = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{0.0, 100.0}))[0];
  auto flip = p.AddOperator(OperatorDef("random.coin_flip").Arg("probability", 0.3))[0];
  auto n = p.AddOperator(OperatorDef("random.normal").Arg("shape", std::vector<int64_t>{2}))[0];
  auto sum = p.AddOperator(OperatorDef("testing.add_constant").Input(src).ArgInput("value", u))[0];
  p.SetOutputs({sum, flip, n, u});
  p.Build();
  std::vector<std::vector<uint8_t>> all;
  for (int it = 0; it < 6; ++it) {
    for (const Batch& b : p.Run()) {
      std::vector<uint8_t> bytes;
      for (int i = 0; i < b.num_samples(); ++i) {
        const auto* d = static_cast<const uint8_t*>(b.data(i));
        bytes.insert(bytes.end(), d, d + b.nbytes(i));
      }
      all.push_back(std::move(bytes));
    }
  }
  return all;
}

TEST(Executor, SameSeedSameOutputsForAnyThreadCount) {
  auto ref = RandomRun(1, 99);
  EXPECT_EQ(RandomRun(2, 99), ref);
  EXPECT_EQ(RandomRun(4, 99), ref);
  EXPECT_EQ(RandomRun(3, 99, /*async=*/false, /*pipelined=*/false), ref);
  EXPECT_NE(RandomRun(2, 100), ref);
}

TEST(Executor, PerSampleArgumentInputIsApplied) {
  Pipeline p(Opts(8, 2));
  auto src = p.AddOperator(OperatorDef("testing.counter"))[0];
  auto u = p.AddOperator(OperatorDef("random.uniform").Arg("range", std::vector<double>{0.0, 1000.0}).Arg("dtype", std::string("int64")))[0];
  auto sum = p.AddOperator(OperatorDef("testing.add_constant").Input(src).ArgInput("value", u))[0];
  p.SetOutputs({src, u, sum});
  p.Build();
  auto out = p.Run();
  for (int i = 0; i < 8; ++i) {
    int64_t s = *static_cast<const int64_t*>(out[0].data(i));
    int64_t v = *static_cast<const int64_t*>(out[1].data(i));
    EXPECT_EQ(*static_cast<const int64_t*>(out[2].data(i)), s + v);
  }
}

TEST(Executor, SharedOutputsStayIntactUntilReleasedAndReleasedBuffersAreReused) {
  PipelineOptions o = Opts(4, 2);
  o.cpu_queue_depth = 2;
  auto p = CounterPipeline(o);
  p->ScheduleRun();
  p->ScheduleRun();
  auto a = p->ShareOutputs();
  const void* a_ptr = a[0].data(0);
  EXPECT_EQ(Values(a[0])[0], 0);
  auto b = p->ShareOutputs();  // the second slot, while the first is still held
  EXPECT_EQ(Values(b[0])[0], 4);
  EXPECT_NE(b[0].data(0), a_ptr);
  // Both slots are held: a third share must fail clearly rather than wait forever.
  p->ScheduleRun();
  try {
    p->ShareOutputs();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("release_outputs"), std::string::npos);
  }
  // Nothing was overwritten while held.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(Values(a[0]), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(Values(b[0]), (std::vector<int64_t>{4, 5, 6, 7}));
  // Drop our views of the oldest and release it: the producer reuses that buffer for the next batch.
  a.clear();
  p->ReleaseOutputs();
  auto c = p->ShareOutputs();
  EXPECT_EQ(Values(c[0])[0], 8);
  EXPECT_EQ(c[0].data(0), a_ptr);
  EXPECT_EQ(Values(b[0]), (std::vector<int64_t>{4, 5, 6, 7}));
  p->ReleaseOutputs();
  p->ReleaseOutputs();
  p->ReleaseOutputs();  // nothing held: a no-op
}

TEST(Executor, ABatchKeptPastItsReleaseIsNeverOverwritten) {
  auto p = CounterPipeline(Opts(4, 1));
  auto first = p->Run();
  std::vector<std::vector<Batch>> kept;
  for (int i = 0; i < 5; ++i) kept.push_back(p->Run());
  EXPECT_EQ(Values(first[0]), (std::vector<int64_t>{0, 1, 2, 3}));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Values(kept[static_cast<size_t>(i)][0])[0], 4 * (i + 1));
}

TEST(Executor, RunBuffersAreRecycled) {
  auto p = CounterPipeline(Opts(4, 1));
  std::set<const void*> ptrs;
  for (int i = 0; i < 10; ++i) {
    auto out = p->Run();
    ptrs.insert(out[0].data(0));
  }
  EXPECT_LE(ptrs.size(), 2u);  // the queue depth, not one per batch
}

TEST(Executor, MixingRunApisIsAnError) {
  auto p = CounterPipeline(Opts(4, 1));
  p->Run();
  EXPECT_THROW(p->ShareOutputs(), Error);
  EXPECT_THROW(p->ReleaseOutputs(), Error);
  auto q = CounterPipeline(Opts(4, 1));
  q->ScheduleRun();
  q->ShareOutputs();
  try {
    q->Run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot mix"), std::string::npos);
  }
  EXPECT_THROW(q->Outputs(), Error);
}

TEST(Executor, TakingOutputsWithNothingScheduledIsAnErrorNotAHang) {
  auto p = CounterPipeline(Opts(4, 1));
  EXPECT_THROW(p->ShareOutputs(), Error);
  PipelineOptions o = Opts(4, 1);
  o.exec_async = false;
  auto q = CounterPipeline(o);
  EXPECT_THROW(q->ShareOutputs(), Error);
}

TEST(Executor, AnErrorInSample17OfBatch3ReachesTheCallerWithItsSource) {
  Pipeline p(Opts(32, 2));
  auto c = p.AddOperator(OperatorDef("testing.counter"))[0];
  auto f = p.AddOperator(OperatorDef("testing.fail")
                             .Name("failing")
                             .Input(c)
                             .Arg("fail_iteration", int64_t{3})
                             .Arg("fail_sample", int64_t{17})
                             .Arg("message", std::string("corrupt data")))[0];
  p.SetOutputs({f});
  p.Build();
  for (int i = 0; i < 3; ++i) EXPECT_NO_THROW(p.Run());
  try {
    p.Run();
    FAIL() << "batch 3 should fail";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.context().op, "failing");
    EXPECT_EQ(e.context().sample, 17);
    EXPECT_EQ(e.context().iteration, 3);
    EXPECT_EQ(e.context().source, "counter:sample-113");
    EXPECT_EQ(e.message(), "corrupt data");
    EXPECT_NE(msg.find("[failing]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sample 17 of batch 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("counter:sample-113"), std::string::npos) << msg;
  }
  // The pipeline stays failed, with the same error.
  try {
    p.Run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.context().sample, 17);
  }
}

TEST(Executor, DestroyingARunningPipelineReturnsWithinOneSecond) {
  for (int consumed : {0, 1}) {
    auto p = std::make_unique<Pipeline>(Opts(256, 2));
    auto c = p->AddOperator(OperatorDef("testing.counter"))[0];
    auto s = p->AddOperator(OperatorDef("testing.sleep").Input(c).Arg("ms", 20.0))[0];  // ~2.5 s per batch
    p->SetOutputs({s});
    p->Build();
    if (consumed) {
      p->Run();  // one batch out, the next ones in flight
    } else {
      for (int i = 0; i < 3; ++i) p->ScheduleRun();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto t0 = Clock::now();
    p.reset();
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0) << "consumed=" << consumed;
  }
}

TEST(Executor, DestroyingAFailedPipelineReturnsPromptly) {
  auto p = std::make_unique<Pipeline>(Opts(8, 2));
  auto c = p->AddOperator(OperatorDef("testing.counter"))[0];
  auto f = p->AddOperator(OperatorDef("testing.fail").Input(c))[0];
  p->SetOutputs({f});
  p->Build();
  EXPECT_THROW(p->Run(), Error);
  const auto t0 = Clock::now();
  p.reset();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 1.0);
}

TEST(Executor, StatisticsReportMemoryTimeAndQueue) {
  PipelineOptions o = Opts(16, 2);
  o.enable_memory_stats = true;
  Pipeline p(o);
  auto c = p.AddOperator(OperatorDef("testing.counter").Name("counter").Arg("shape", std::vector<int64_t>{10}))[0];
  auto s = p.AddOperator(OperatorDef("copy").Name("copy").Input(c).Arg("bytes_per_sample_hint", int64_t{1000}))[0];
  p.SetOutputs({s});
  p.Build();
  // Presizing happened at build: reserved before the first run.
  ExecutorStatistics before = p.GetExecutorStatistics();
  ASSERT_EQ(before.operators.size(), 2u);
  EXPECT_EQ(before.operators[1].name, "copy");
  EXPECT_EQ(before.operators[1].reserved_memory_size[0], 16u * 1000);
  EXPECT_EQ(before.operators[1].max_reserved_memory_size[0], 1000u);
  for (int i = 0; i < 4; ++i) p.Run();
  ExecutorStatistics st = p.GetExecutorStatistics();
  const auto& counter = st.operators[0];
  EXPECT_EQ(counter.real_memory_size[0], 16u * 10 * 8);
  EXPECT_EQ(counter.max_real_memory_size[0], 80u);        // contiguous: the average sample
  EXPECT_GE(counter.reserved_memory_size[0], 16u * 80);
  const auto& copy = st.operators[1];
  EXPECT_EQ(copy.real_memory_size[0], 16u * 80);
  EXPECT_EQ(copy.max_real_memory_size[0], 80u);            // per sample: the biggest
  // The hint was far above the real size (80 < 0.9 * 1000): the shrink policy gave memory back.
  EXPECT_EQ(copy.reserved_memory_size[0], 16u * 80);
  EXPECT_GE(counter.batches, 4);
  EXPECT_GT(copy.total_time_ms, 0.0);
  EXPECT_GE(st.batches_produced, 4);
  EXPECT_EQ(st.queue_capacity, 2);
  EXPECT_GE(st.max_queue_occupancy, 1);
}

TEST(Executor, WithoutMemoryStatsOnlyTimingIsReported) {
  auto p = CounterPipeline(Opts(4, 1));
  p->Run();
  auto st = p->GetExecutorStatistics();
  EXPECT_TRUE(st.operators[0].real_memory_size.empty());
  EXPECT_GE(st.operators[0].batches, 1);
}

TEST(Executor, ExternalSourceFeedsHostData) {
  Pipeline p(Opts(3, 1));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src").Arg("layout", std::string("HW")))[0];
  auto a = p.AddOperator(OperatorDef("testing.add_constant").Input(e).Arg("value", 10.0))[0];
  p.SetOutputs({a});
  p.Build();
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<Pipeline::ExternalSample> batch;
  for (int i = 0; i < 3; ++i) batch.push_back({x.data() + 2 * i, TensorShape{1, 2}, DType::kFloat32});
  for (int it = 0; it < 2; ++it) p.FeedInput("src", batch);
  auto out = p.Run();  // the first run prefetches two batches, both fed above
  EXPECT_EQ(out[0].layout(), "HW");
  EXPECT_EQ(out[0].shape(2), (TensorShape{1, 2}));
  EXPECT_FLOAT_EQ(static_cast<const float*>(out[0].data(2))[1], 16.f);
  EXPECT_NO_THROW(p.Run());
  EXPECT_THROW(p.FeedInput("nope", batch), Error);
  // Nothing fed for the next batch: a clear error naming the operator.
  try {
    p.Run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.context().op, "src");
    EXPECT_NE(std::string(e.what()).find("feed_input"), std::string::npos);
  }
}

TEST(Executor, ReaderMetaForNonReadersIsAnError) {
  auto p = CounterPipeline(Opts(4, 1));
  EXPECT_THROW(p->GetReaderMeta("counter"), Error);
  try {
    p->GetReaderMeta("countr");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no reader named"), std::string::npos);
  }
  EXPECT_TRUE(p->GetReaderMeta().empty());
}

std::string ValidationError(const PipelineOptions& o) {
  try {
    o.Validate();
  } catch (const Error& e) {
    try {
      Pipeline p(o);  // the constructor says the same
    } catch (const Error& e2) {
      EXPECT_STREQ(e.what(), e2.what());
      return e.what();
    }
    ADD_FAILURE() << "Pipeline accepted what Validate() rejects: " << e.what();
  }
  return "";
}

TEST(Executor, InvalidOptionsAreRejected) {
  EXPECT_EQ(ValidationError(Opts(0, 1)), "batch_size must be at least 1, got 0");
  EXPECT_EQ(ValidationError(Opts(1, 0)), "num_threads must be at least 1, got 0");
  PipelineOptions o = Opts(4, 1);
  o.cpu_queue_depth = 0;
  EXPECT_NE(ValidationError(o).find("cpu_queue_depth (prefetch_queue_depth) must be at least 1, got 0"),
            std::string::npos);
  o = Opts(4, 1);
  o.gpu_queue_depth = -1;
  EXPECT_NE(ValidationError(o).find("gpu_queue_depth"), std::string::npos);
  o = Opts(4, 1);
  o.device_id = -2;
  EXPECT_NE(ValidationError(o).find("device_id"), std::string::npos);
  o = Opts(4, 1);
  o.memory = MemoryConfig{};
  o.memory->host_growth_factor = 0.5;
  EXPECT_NE(ValidationError(o).find("host_growth_factor"), std::string::npos);
  EXPECT_NO_THROW(Opts(4, 1).Validate());
  Pipeline q(Opts(4, 1));
  EXPECT_THROW(q.Run(), Error);  // not built
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(Executor, InputTypesAreCheckedAgainstTheSchema) {
  Pipeline p(Opts(2, 1));
  auto c = p.AddOperator(OperatorDef("testing.counter"))[0];  // int64
  auto d = p.AddOperator(OperatorDef("decoders.image").Name("dec").Input(c))[0];
  p.SetOutputs({d});
  p.Build();
  try {
    p.Run();
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.context().op, "dec");
    EXPECT_NE(std::string(e.what()).find("input 'data' must be uint8, got int64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sluice
