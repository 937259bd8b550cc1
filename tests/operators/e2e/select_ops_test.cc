// _select.split, _select.merge and _select.table (the per-sample switch behind sluice.auto_aug):
// rows go to their branch in order, come back to their place, sources follow them, empty branches
// work, an operator without inputs makes as many samples as its per-sample argument has, and the
// errors name the operator.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstring>

#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// Sample i of `data` is a 2x3x1 uint8 HWC image filled with 10 * i; `index` holds each sample's branch.
// cpu_depth: the prefetch queue's depth; the first run() schedules that many iterations, so a test
// that feeds one batch per run() after the first needs 1.
PipelineOptions SwitchOptions(int batch, int threads, int cpu_depth) {
  PipelineOptions o = Options(batch, threads);
  o.cpu_queue_depth = cpu_depth;
  return o;
}

struct Switch {
  explicit Switch(std::vector<int32_t> index, int threads = 2, int cpu_depth = 2)
      : index_(std::move(index)), p_(SwitchOptions(static_cast<int>(index_.size()), threads, cpu_depth)) {
    data_ = p_.AddOperator(OperatorDef("external_source").Name("data"))[0];
    idx_ = p_.AddOperator(OperatorDef("external_source").Name("index"))[0];
  }
  std::string Split(int branch) {
    return p_.AddOperator(OperatorDef("_select.split").Input(data_).Input(idx_).Arg("branch", int64_t{branch}))[0];
  }
  // feed_data: false when the outputs do not read `data` (the pipeline prunes its source).
  std::vector<Batch> Run(const std::vector<std::string>& outputs, bool feed_data = true) {
    p_.SetOutputs(outputs);
    p_.Build();
    std::vector<std::vector<uint8_t>> images;
    for (size_t i = 0; i < index_.size(); ++i) images.emplace_back(6, static_cast<uint8_t>(10 * i));
    std::vector<Pipeline::ExternalSample> data, index;
    for (size_t i = 0; i < index_.size(); ++i) {
      data.push_back({images[i].data(), TensorShape{2, 3, 1}, DType::kUInt8});
      index.push_back({&index_[i], TensorShape{}, DType::kInt32});
    }
    if (feed_data) p_.FeedInput("data", data, "HWC");
    p_.FeedInput("index", index, "");
    return p_.Run();
  }
  std::vector<int32_t> index_;
  Pipeline p_;
  std::string data_, idx_;
};

TEST(SelectOps, SplitKeepsTheBranchRowsInOrder) {
  Switch s({2, 0, 2, 1, 2, 0});
  auto out = s.Run({s.Split(0), s.Split(1), s.Split(2), s.Split(3)});
  ASSERT_EQ(out[0].num_samples(), 2);
  EXPECT_EQ(SampleData<uint8_t>(out[0], 0), std::vector<uint8_t>(6, 10));
  EXPECT_EQ(SampleData<uint8_t>(out[0], 1), std::vector<uint8_t>(6, 50));
  ASSERT_EQ(out[1].num_samples(), 1);
  EXPECT_EQ(SampleData<uint8_t>(out[1], 0), std::vector<uint8_t>(6, 30));
  ASSERT_EQ(out[2].num_samples(), 3);
  EXPECT_EQ(SampleData<uint8_t>(out[2], 2), std::vector<uint8_t>(6, 40));
  EXPECT_EQ(out[2].layout(), "HWC");
  EXPECT_EQ(out[3].num_samples(), 0);  // a branch nobody takes
}

TEST(SelectOps, MergePutsEveryRowBackAfterItsBranch) {
  Switch s({1, 0, 1, 1, 0, 2, 1, 0});
  // Branch 1 flips horizontally (a real operator on a partial batch), branch 2 casts to uint8 again.
  const auto b0 = s.Split(0);
  const auto b1 = s.p_.AddOperator(OperatorDef("flip").Input(s.Split(1)).Arg("horizontal", int64_t{1}))[0];
  const auto b2 = s.p_.AddOperator(OperatorDef("copy").Input(s.Split(2)))[0];
  const auto merged = s.p_.AddOperator(OperatorDef("_select.merge").Input(s.idx_).Input(b0).Input(b1).Input(b2))[0];
  auto out = s.Run({merged});
  ASSERT_EQ(out[0].num_samples(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[0].shape(i), (TensorShape{2, 3, 1}));
    EXPECT_EQ(SampleData<uint8_t>(out[0], i), std::vector<uint8_t>(6, static_cast<uint8_t>(10 * i))) << i;
  }
}

TEST(SelectOps, SplitAndMergeHandOutViewsThatOutliveLaterRuns) {
  // One slot (depth 1): every run reuses the buffers the held batch's views point into.
  Switch s({1, 0, 1, 0}, 2, 1);
  const auto b0 = s.Split(0);
  const auto b1 = s.p_.AddOperator(OperatorDef("flip").Input(s.Split(1)).Arg("horizontal", int64_t{1}))[0];
  const auto merged = s.p_.AddOperator(OperatorDef("_select.merge").Input(s.idx_).Input(b0).Input(b1))[0];
  auto out = s.Run({s.data_, b0, b1, merged});
  // No copies: split's rows are the data's samples, merge's rows the branches'.
  EXPECT_EQ(out[1].data(0), out[0].data(1));
  EXPECT_EQ(out[1].data(1), out[0].data(3));
  EXPECT_EQ(out[3].data(1), out[1].data(0));
  EXPECT_EQ(out[3].data(2), out[2].data(1));
  // The merged batch, held alone, stays as it was through many more runs of new data.
  std::vector<Batch> held{out[3]};
  out.clear();
  auto feed = [&](uint8_t value) {  // the fed data are copied
    std::vector<uint8_t> other(6, value);
    std::vector<Pipeline::ExternalSample> data, index;
    for (size_t i = 0; i < s.index_.size(); ++i) {
      data.push_back({other.data(), TensorShape{2, 3, 1}, DType::kUInt8});
      index.push_back({&s.index_[i], TensorShape{}, DType::kInt32});
    }
    s.p_.FeedInput("data", data, "HWC");
    s.p_.FeedInput("index", index, "");
  };
  feed(200);  // one batch ahead of each run()
  for (int k = 0; k < 8; ++k) {
    feed(static_cast<uint8_t>(201 + k));
    EXPECT_EQ(SampleData<uint8_t>(s.p_.Run()[3], 0), std::vector<uint8_t>(6, static_cast<uint8_t>(200 + k)));
  }
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(SampleData<uint8_t>(held[0], i), std::vector<uint8_t>(6, static_cast<uint8_t>(10 * i))) << i;
}

TEST(SelectOps, OperatorWithoutInputsTakesItsArgumentsBatch) {
  // random.uniform(range=per-sample) in branch 1: as many values as the branch has samples.
  Switch s({1, 0, 1});
  const auto branch = s.Split(1);
  const auto ranges = s.p_.AddOperator(OperatorDef("_select.table").Input(branch).Arg("values", std::vector<double>{5, 5})
                                           .Arg("shape", std::vector<int64_t>{2}).Arg("entry", int64_t{0}))[0];
  const auto draws = s.p_.AddOperator(OperatorDef("random.uniform").ArgInput("range", ranges))[0];
  auto out = s.Run({draws});
  ASSERT_EQ(out[0].num_samples(), 2);
  EXPECT_EQ(SampleData<float>(out[0], 1), std::vector<float>{5.0f});
}

TEST(SelectOps, TableLooksUpEachSamplesEntry) {
  Switch s({2, 0, 1});
  const auto t = s.p_.AddOperator(OperatorDef("_select.table").Input(s.idx_).Arg("values", std::vector<double>{0, 1, 10, 11, 20, 21})
                                      .Arg("shape", std::vector<int64_t>{2}).Arg("dtype", std::string("int32")))[0];
  auto out = s.Run({t}, false);
  EXPECT_EQ(out[0].dtype(), DType::kInt32);
  EXPECT_EQ(SampleData<int32_t>(out[0], 0), (std::vector<int32_t>{20, 21}));
  EXPECT_EQ(SampleData<int32_t>(out[0], 1), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(SampleData<int32_t>(out[0], 2), (std::vector<int32_t>{10, 11}));
}

TEST(SelectOps, Errors) {
  ExpectError([] {
    Switch s({0, 3});
    s.Run({s.p_.AddOperator(OperatorDef("_select.merge").Input(s.idx_).Input(s.Split(0)).Input(s.Split(1)))[0]});
  }, {"_select.merge", "sample 1 selects branch 3 of 2"});
  ExpectError([] {
    Switch s({0, 1, 1});
    // Branch 1 given the whole batch: 3 samples for the 2 it was dealt.
    s.Run({s.p_.AddOperator(OperatorDef("_select.merge").Input(s.idx_).Input(s.Split(0)).Input(s.data_))[0]});
  }, {"_select.merge", "branch 1 returned 3 samples for the 2"});
  ExpectError([] {
    Switch s({0, 1});
    const auto f = s.p_.AddOperator(OperatorDef("cast").Input(s.Split(1)).Arg("dtype", std::string("float32")))[0];
    s.Run({s.p_.AddOperator(OperatorDef("_select.merge").Input(s.idx_).Input(s.Split(0)).Input(f))[0]});
  }, {"_select.merge", "same type"});
  ExpectError([] {
    Switch s({0, 5});
    s.Run({s.p_.AddOperator(OperatorDef("_select.table").Input(s.idx_).Arg("values", std::vector<double>{1, 2}))[0]}, false);
  }, {"_select.table", "index 5", "2 entries"});
  ExpectError([] {
    Switch s({0});
    s.Run({s.p_.AddOperator(OperatorDef("_select.table").Input(s.idx_).Arg("values", std::vector<double>{1, 2, 3})
                                .Arg("shape", std::vector<int64_t>{2}))[0]}, false);
  }, {"_select.table", "values", "whole entries"});
}

}  // namespace
}  // namespace sluice
