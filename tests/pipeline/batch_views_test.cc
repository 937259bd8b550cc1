// Batches that share memory, through the executor: a pipeline output that views another node's
// buffers (reshape of a copy) survives many further runs unchanged while the caller holds it,
// steady state allocates nothing once the caller lets go (the slot's views are dropped before
// its nodes write), the memory statistics count a view as used, not reserved, and a replaced
// row of a view output is re-pointed, never written through.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/allocator.h"
#include "core/tensor_list.h"
#include "pipeline/sample_replacement.h"

namespace sluice {
namespace {

PipelineOptions Opts(int batch, int threads) {
  PipelineOptions o;
  o.batch_size = batch;
  o.num_threads = threads;
  o.seed = 99;
  return o;
}

// counter (int64, 16 elements per sample) -> copy -> reshape to 4x4: the output views copy's buffers.
std::unique_ptr<Pipeline> ViewPipeline(PipelineOptions o) {
  auto p = std::make_unique<Pipeline>(o);
  auto c = p->AddOperator(OperatorDef("testing.counter").Name("counter").Arg("shape", std::vector<int64_t>{16}))[0];
  auto copy = p->AddOperator(OperatorDef("copy").Name("copy").Input(c))[0];
  auto view = p->AddOperator(OperatorDef("reshape").Name("view").Input(copy).Arg("shape", std::vector<int64_t>{4, 4}))[0];
  p->SetOutputs({view});
  p->Build();
  return p;
}

// Every element of every sample of batch `k` is k * batch + i.
void ExpectBatch(const Batch& b, int64_t k) {
  ASSERT_EQ(b.shape(0), (TensorShape{4, 4}));
  for (int i = 0; i < b.num_samples(); ++i) {
    const auto* v = static_cast<const int64_t*>(b.data(i));
    for (int e = 0; e < 16; ++e) ASSERT_EQ(v[e], k * b.num_samples() + i) << "batch " << k << " sample " << i;
  }
}

TEST(BatchViews, AHeldViewOutputSurvivesManyFurtherRunsUnchanged) {
  for (int threads : {1, 3}) {
    auto p = ViewPipeline(Opts(4, threads));
    auto first = p->Run();
    std::vector<std::vector<Batch>> kept;
    for (int k = 1; k <= 30; ++k) {
      auto out = p->Run();
      ExpectBatch(out[0], k);
      if (k % 7 == 0) kept.push_back(std::move(out));
    }
    ExpectBatch(first[0], 0);
    for (size_t j = 0; j < kept.size(); ++j) ExpectBatch(kept[j][0], 7 * static_cast<int64_t>(j + 1));
  }
}

TEST(BatchViews, ShareOutputsHeldPastReleaseStayIntact) {
  PipelineOptions o = Opts(4, 2);
  o.cpu_queue_depth = 2;
  auto p = ViewPipeline(o);
  p->ScheduleRun();
  p->ScheduleRun();
  auto a = p->ShareOutputs();
  p->ReleaseOutputs();  // the slot goes back while `a` still views its copy's buffers
  for (int k = 1; k < 12; ++k) {
    p->ScheduleRun();
    auto b = p->ShareOutputs();
    ExpectBatch(b[0], k);
    p->ReleaseOutputs();
  }
  ExpectBatch(a[0], 0);
}

// Host allocations counted (installed once for this test binary; the blocks it hands out are
// freed by whichever host allocator is installed then, all of them aligned_alloc/free).
std::atomic<int64_t> g_allocations{0};
class CountingAllocator : public Allocator {
 public:
  void* Allocate(size_t bytes) override {
    g_allocations.fetch_add(1);
    void* p = std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
    if (!p) throw Error("out of memory");
    return p;
  }
  void Deallocate(void* p, size_t) override { std::free(p); }
  StorageKind kind() const override { return StorageKind::kHost; }
};

TEST(BatchViews, SteadyStateAllocatesNothingOnceTheCallerLetsGo) {
  SetAllocator(StorageKind::kHost, std::make_shared<CountingAllocator>());
  auto p = ViewPipeline(Opts(8, 2));
  for (int k = 0; k < 6; ++k) p->Run();
  const int64_t before = g_allocations.load();
  for (int k = 6; k < 40; ++k) ExpectBatch(p->Run()[0], k);
  EXPECT_EQ(g_allocations.load(), before) << "the views kept copy's buffers from being reused";
  // Holding every output makes the copy node write into fresh memory each time instead.
  std::vector<std::vector<Batch>> kept;
  for (int k = 40; k < 45; ++k) kept.push_back(p->Run());
  EXPECT_GE(g_allocations.load() - before, 4);
  for (int k = 40; k < 45; ++k) ExpectBatch(kept[static_cast<size_t>(k - 40)][0], k);
}

TEST(BatchViews, StatisticsCountAViewAsUsedNotReserved) {
  PipelineOptions o = Opts(8, 2);
  o.enable_memory_stats = true;
  auto p = ViewPipeline(o);
  for (int k = 0; k < 3; ++k) p->Run();
  const ExecutorStatistics st = p->GetExecutorStatistics();
  ASSERT_EQ(st.operators.size(), 3u);
  const auto& copy = st.operators[1];
  const auto& view = st.operators[2];
  EXPECT_EQ(view.name, "view");
  EXPECT_EQ(view.real_memory_size[0], 8u * 16 * 8);
  EXPECT_EQ(view.max_real_memory_size[0], 16u * 8);
  EXPECT_EQ(view.reserved_memory_size[0], 0u);
  EXPECT_EQ(view.max_reserved_memory_size[0], 0u);
  EXPECT_EQ(copy.real_memory_size[0], 8u * 16 * 8);
  EXPECT_GE(copy.reserved_memory_size[0], 8u * 16 * 8);
}

TEST(BatchViews, ReplacedRowsOfViewsAreRepointedNotWrittenThrough) {
  // `owner` (own memory) and `frames`, its samples' second halves as views: row 1 failed.
  auto owner = std::make_shared<TensorList>();
  owner->Resize(std::vector<TensorShape>(3, TensorShape{8}), DType::kUInt8, MemoryConfig{});
  for (int i = 0; i < 3; ++i)
    for (int e = 0; e < 8; ++e) owner->mutable_sample<uint8_t>(i)[e] = static_cast<uint8_t>(10 * i + e);
  auto frames = std::make_shared<TensorList>();
  frames->ResizeViews(std::vector<TensorShape>(3, TensorShape{4}), DType::kUInt8);
  for (int i = 0; i < 3; ++i) frames->ShareSample(i, *owner, i, 4);
  std::vector<FailedSample> failed(1);
  failed[0].record.sample = 1;
  for (const auto& order : {std::vector{frames, owner}, std::vector{owner, frames}}) {
    auto f = failed;
    ReplaceFailedRows(f, order, MemoryConfig{}, nullptr);
    EXPECT_EQ(f[0].record.replaced_by, 2);
    for (int e = 0; e < 8; ++e) EXPECT_EQ(owner->sample<uint8_t>(1)[e], 20 + e);
    for (int e = 0; e < 4; ++e) EXPECT_EQ(frames->sample<uint8_t>(1)[e], 24 + e);
    EXPECT_TRUE(frames->is_view(1));
    EXPECT_EQ(frames->raw_sample(1), frames->raw_sample(2));
    EXPECT_EQ(owner->sample<uint8_t>(0)[0], 0);  // good rows untouched
  }
}

}  // namespace
}  // namespace sluice
