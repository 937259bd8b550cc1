// The executor runs a level's small operators side by side (node_runner.h, RunLevels): eight
// branches of two samples each (a quarter of the batch or less), as sluice.auto_aug's switch makes
// them, with random operators among them, give the one-thread batches iteration after iteration.
// This layer's tests run under TSan, so this is also the race test of that concurrency.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstring>
#include <string>
#include <vector>

namespace sluice {
namespace {

constexpr int kBatch = 16;

std::vector<Pipeline::ExternalSample> Samples(const std::vector<uint8_t>& image, const std::vector<int32_t>& index,
                                              bool images) {
  std::vector<Pipeline::ExternalSample> out;
  for (int i = 0; i < kBatch; ++i) {
    if (images) out.push_back({image.data(), TensorShape{2, 3, 1}, DType::kUInt8});
    else out.push_back({&index[static_cast<size_t>(i)], TensorShape{}, DType::kInt32});
  }
  return out;
}

// Every batch's bytes, in order, for `iterations` batches of `threads` threads.
std::vector<std::vector<uint8_t>> RunEightBranches(int threads, int iterations) {
  PipelineOptions o;
  o.batch_size = kBatch;
  o.num_threads = threads;
  o.seed = 7;
  o.cpu_queue_depth = 1;
  Pipeline p(o);
  const auto data = p.AddOperator(OperatorDef("external_source").Name("data"))[0];
  const auto idx = p.AddOperator(OperatorDef("external_source").Name("index"))[0];
  OperatorDef merge("_select.merge");
  merge.Input(idx);
  for (int b = 0; b < 8; ++b) {
    auto x = p.AddOperator(OperatorDef("_select.split").Input(data).Input(idx).Arg("branch", int64_t{b}))[0];
    x = p.AddOperator(OperatorDef("flip").Input(x).Arg("horizontal", int64_t{b % 2}))[0];
    x = p.AddOperator(OperatorDef("noise.gaussian").Input(x).Arg("stddev", 20.0))[0];
    merge.Input(p.AddOperator(OperatorDef("copy").Input(x))[0]);
  }
  p.SetOutputs({p.AddOperator(merge)[0]});
  p.Build();
  std::vector<int32_t> index(kBatch);
  for (int i = 0; i < kBatch; ++i) index[static_cast<size_t>(i)] = (i * 5) % 8;  // two samples per branch
  std::vector<uint8_t> image(6);
  std::vector<std::vector<uint8_t>> batches;
  // One batch fed ahead of each run() (prefetch depth 1).
  for (int k = 0; k <= iterations; ++k) {
    for (int e = 0; e < 6; ++e) image[static_cast<size_t>(e)] = static_cast<uint8_t>(e * 30 + k);
    p.FeedInput("data", Samples(image, index, true), "HWC");
    p.FeedInput("index", Samples(image, index, false), "");
    if (k == 0) continue;
    const Batch b = p.Run()[0];
    std::vector<uint8_t> all;
    for (int i = 0; i < b.num_samples(); ++i) {
      const auto* v = static_cast<const uint8_t*>(b.data(i));
      all.insert(all.end(), v, v + b.nbytes(i));
    }
    batches.push_back(std::move(all));
  }
  return batches;
}

TEST(SideBySide, SmallBranchesGiveTheOneThreadBatches) {
  const auto one = RunEightBranches(1, 6);
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(one[0].size(), size_t{kBatch} * 6);
  EXPECT_NE(one[0], one[1]);  // new data and new noise every iteration
  for (int threads : {2, 3}) EXPECT_EQ(RunEightBranches(threads, 6), one) << threads << " threads";
}

}  // namespace
}  // namespace sluice
