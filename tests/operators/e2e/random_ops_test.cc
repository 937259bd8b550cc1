// random.coin_flip, random.uniform, random.normal and random.beta with DALI's optional `shape_like`
// input: each output sample takes the shape of the input's sample (any type; its data is not read),
// the output type stays the operator's (`dtype`), `shape` together with the input is an error, and
// the values are the same for any num_threads.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <cstring>

#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// external_source("like") of uint8 samples with `shapes` -> op(like) (op without an input where
// `with_input` is false).
std::vector<Batch> RunRandom(OperatorDef op, const std::vector<TensorShape>& shapes, int threads = 2, int64_t seed = 7,
                             bool with_input = true) {
  Pipeline p(Options(static_cast<int>(shapes.size()), threads, seed));
  if (with_input) op.Input(p.AddOperator(OperatorDef("external_source").Name("like"))[0]);
  auto outs = p.AddOperator(op);
  p.SetOutputs(outs);
  p.Build();
  if (with_input) {
    std::vector<std::vector<uint8_t>> data;
    for (const auto& s : shapes) data.emplace_back(static_cast<size_t>(s.num_elements()), uint8_t{9});
    std::vector<Pipeline::ExternalSample> batch;
    for (size_t i = 0; i < shapes.size(); ++i) batch.push_back({data[i].data(), shapes[i], DType::kUInt8});
    for (int k = 0; k < 2; ++k) p.FeedInput("like", batch, "");
  }
  return p.Run();
}

const std::vector<TensorShape> kShapes{{3, 4}, {2, 5}, {0, 3}};

TEST(RandomOps, ShapeLikeGivesEachSampleTheInputsShape) {
  for (const char* name : {"random.normal", "random.uniform", "random.coin_flip", "random.beta"}) {
    SCOPED_TRACE(name);
    auto out = RunRandom(OperatorDef(name), kShapes);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].num_samples(), 3);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(out[0].shape(i), kShapes[static_cast<size_t>(i)]);
    // The type is the operator's, not the input's (DALI: float32, coin_flip int32).
    EXPECT_EQ(out[0].dtype(), std::string(name) == "random.coin_flip" ? DType::kInt32 : DType::kFloat32);
  }
  auto u8 = RunRandom(OperatorDef("random.coin_flip").Arg("dtype", std::string("uint8")), kShapes);
  EXPECT_EQ(u8[0].dtype(), DType::kUInt8);
  EXPECT_EQ(u8[0].shape(1), (TensorShape{2, 5}));
  for (uint8_t v : SampleData<uint8_t>(u8[0], 1)) EXPECT_LE(v, 1);
  // A scalar sample gives a scalar.
  auto scalar = RunRandom(OperatorDef("random.normal"), {TensorShape{}, TensorShape{}});
  EXPECT_EQ(scalar[0].shape(0), TensorShape{});
  EXPECT_EQ(SampleData<float>(scalar[0], 1).size(), 1u);
}

TEST(RandomOps, ShapeLikeValuesFollowTheDistribution) {
  const std::vector<TensorShape> big{{200, 100}};
  auto n = RunRandom(OperatorDef("random.normal").Arg("mean", 2.0).Arg("stddev", 3.0), big);
  const auto v = SampleData<float>(n[0], 0);
  ASSERT_EQ(v.size(), 20000u);
  double sum = 0, sq = 0;
  for (float x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  for (float x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 2.0, 0.1);
  EXPECT_NEAR(std::sqrt(sq / static_cast<double>(v.size())), 3.0, 0.1);

  auto u = RunRandom(OperatorDef("random.uniform").Arg("range", std::vector<double>{-2.0, 6.0}), big);
  double usum = 0;
  for (float x : SampleData<float>(u[0], 0)) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LT(x, 6.0f);
    usum += x;
  }
  EXPECT_NEAR(usum / 20000, 2.0, 0.1);

  auto c = RunRandom(OperatorDef("random.coin_flip").Arg("probability", 0.3), big);
  int ones = 0;
  for (int32_t x : SampleData<int32_t>(c[0], 0)) ones += x;
  EXPECT_NEAR(ones / 20000.0, 0.3, 0.02);
}

TEST(RandomOps, ShapeLikeIsDeterministicForASeedAndAnyThreads) {
  for (const char* name : {"random.normal", "random.uniform", "random.coin_flip"}) {
    SCOPED_TRACE(name);
    const auto one = AllBytes(RunRandom(OperatorDef(name), kShapes, 1, 11));
    EXPECT_EQ(one, AllBytes(RunRandom(OperatorDef(name), kShapes, 2, 11)));
    EXPECT_EQ(one, AllBytes(RunRandom(OperatorDef(name), kShapes, 1, 11)));
    EXPECT_NE(one, AllBytes(RunRandom(OperatorDef(name), kShapes, 1, 12)));
  }
}

TEST(RandomOps, ShapeAndShapeLikeTogetherIsAnError) {
  for (const char* name : {"random.normal", "random.uniform", "random.coin_flip", "random.beta"}) {
    SCOPED_TRACE(name);
    ExpectError([&] { RunRandom(OperatorDef(name).Arg("shape", std::vector<int64_t>{2}), kShapes); },
                {name, "shape", "shape_like"});
  }
  // Without the input, `shape` still gives the shape.
  auto out = RunRandom(OperatorDef("random.normal").Arg("shape", std::vector<int64_t>{2, 2}), kShapes, 2, 7, false);
  EXPECT_EQ(out[0].shape(2), (TensorShape{2, 2}));
}

}  // namespace
}  // namespace sluice
