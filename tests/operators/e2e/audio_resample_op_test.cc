// audio_resample through a pipeline (op_harness.h): the three ways to give the ratio and their
// exclusivity, per-sample arguments, 1-D and samples x channels input with the layout kept, DALI's
// normalising type conversions (its documented examples), empty inputs and determinism. The filter
// itself is tests/kernels/resample_test.cc's.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "op_harness.h"
#include "operators/e2e/op_test_util.h"

namespace sluice::testing {
namespace {

std::vector<float> Sine(int n, double cycles_per_sample) {
  std::vector<float> v;
  for (int t = 0; t < n; ++t) v.push_back(float(0.5 * std::sin(2 * std::numbers::pi * cycles_per_sample * t)));
  return v;
}

TEST(AudioResampleOp, RatesScaleAndOutLengthGiveDalisLengths) {
  const auto x = Sine(1000, 0.01);
  const HostBatch in = HostBatch::Of<float>({x, std::vector<float>(x.begin(), x.begin() + 333)}, {{1000}, {333}});
  auto out = RunOpCase({OperatorDef("audio_resample").Arg("in_rate", 22050.0).Arg("out_rate", 16000.0), in, {}});
  EXPECT_EQ(out[0].shape(0), TensorShape{726});  // ceil(725.6)
  EXPECT_EQ(out[0].shape(1), TensorShape{242});  // ceil(241.6)
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  out = RunOpCase({OperatorDef("audio_resample").Arg("scale", 1.5), in, {}});
  EXPECT_EQ(out[0].shape(0), TensorShape{1500});
  EXPECT_EQ(out[0].shape(1), TensorShape{500});  // 499.5 -> 500
  out = RunOpCase({OperatorDef("audio_resample").Arg("out_length", int64_t{100}), in, {}});
  EXPECT_EQ(out[0].shape(0), TensorShape{100});
  EXPECT_EQ(out[0].shape(1), TensorShape{100});
  // Per sample.
  OpCase c{OperatorDef("audio_resample"), in, {}};
  c.arg_inputs.push_back({"scale", HostBatch::Of<float>({{2.f}, {0.f}}, {{}, {}})});
  out = RunOpCase(c);
  EXPECT_EQ(out[0].shape(0), TensorShape{2000});
  EXPECT_EQ(out[0].shape(1), TensorShape{0});
  // The signal: a slow sine stays that sine at the new rate (away from the ends).
  const auto y = SampleData<float>(RunOpCase({OperatorDef("audio_resample").Arg("scale", 2.0), in, {}})[0], 0);
  for (int j = 100; j < 1900; ++j) ASSERT_NEAR(y[size_t(j)], 0.5 * std::sin(2 * std::numbers::pi * 0.005 * j), 1e-4) << j;
}

TEST(AudioResampleOp, ChannelsAndLayoutAreKept) {
  std::vector<float> x;
  for (int t = 0; t < 400; ++t) {
    x.push_back(float(std::sin(0.05 * t)));
    x.push_back(float(std::cos(0.03 * t)));
  }
  const auto out = RunOpCase({OperatorDef("audio_resample").Arg("scale", 0.5),
                              HostBatch::Of<float>({x}, {TensorShape{400, 2}}, "TC"), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{200, 2}));
  EXPECT_EQ(out[0].layout(), "TC");
  const auto y = SampleData<float>(out[0], 0);
  for (int j = 40; j < 160; ++j) {
    ASSERT_NEAR(y[size_t(2 * j)], std::sin(0.1 * j), 2e-4) << j;
    ASSERT_NEAR(y[size_t(2 * j + 1)], std::cos(0.06 * j), 2e-4) << j;
  }
}

// DALI's documented conversions, at scale 1 (the identity filter): float -> uint8, uint8 -> int16,
// uint16 -> float.
TEST(AudioResampleOp, TypeConversionsAreDalis) {
  auto run = [](const HostBatch& in, const std::string& dtype) {
    return RunOpCase({OperatorDef("audio_resample").Arg("scale", 1.0).Arg("dtype", dtype), in, {}})[0];
  };
  const auto u8 = SampleData<uint8_t>(run(HostBatch::Of<float>({{-1.f, 0.f, 1.f}}, {{3}}), "uint8"), 0);
  EXPECT_EQ(u8, (std::vector<uint8_t>{0, 128, 255}));
  const auto i16 = SampleData<int16_t>(run(HostBatch::Of<uint8_t>({{0, 127, 128, 255}}, {{4}}), "int16"), 0);
  EXPECT_EQ(i16, (std::vector<int16_t>{-32767, -128, 128, 32767}));
  const auto f = SampleData<float>(run(HostBatch::Of<uint16_t>({{0, 32767, 32768, 65535}}, {{4}}), "float32"), 0);
  EXPECT_FLOAT_EQ(f[0], -1.f);
  EXPECT_NEAR(f[1], -0.000015, 1e-6);
  EXPECT_NEAR(f[2], 0.000015, 1e-6);
  EXPECT_FLOAT_EQ(f[3], 1.f);
  // Not given: the input's type.
  const auto same = run(HostBatch::Of<int16_t>({{100, -100}}, {{2}}), "int16");
  EXPECT_EQ(SampleData<int16_t>(RunOpCase({OperatorDef("audio_resample").Arg("scale", 1.0),
                                           HostBatch::Of<int16_t>({{100, -100}}, {{2}}), {}})[0], 0),
            SampleData<int16_t>(same, 0));
}

TEST(AudioResampleOp, EmptyInputs) {
  const HostBatch empty = HostBatch::Of<float>({{}}, {TensorShape{0}});
  EXPECT_EQ(RunOpCase({OperatorDef("audio_resample").Arg("scale", 2.0), empty, {}})[0].shape(0), TensorShape{0});
  EXPECT_EQ(RunOpCase({OperatorDef("audio_resample").Arg("out_length", int64_t{0}), empty, {}})[0].shape(0),
            TensorShape{0});
  ExpectRunError({OperatorDef("audio_resample").Arg("out_length", int64_t{5}), empty, {}}, "from an empty input");
}

TEST(AudioResampleOp, SameBatchesForAnyThreadCount) {
  std::vector<std::vector<float>> s;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < 6; ++i) {
    s.push_back(Sine(700 + 91 * i, 0.01 * (i + 1)));
    shapes.push_back(TensorShape{int64_t(s.back().size())});
  }
  OpCase c{OperatorDef("audio_resample"), HostBatch::Of(s, shapes), {}};
  c.arg_inputs.push_back({"scale", HostBatch::Of<float>({{0.5f}, {1.1f}, {2.f}, {0.9f}, {1.f}, {0.37f}},
                                                        {{}, {}, {}, {}, {}, {}})});
  ExpectSameForAnyThreadCount(c);
}

TEST(AudioResampleOp, ArgumentRulesAreDalis) {
  ExpectCallError(OperatorDef("audio_resample"), "scale", "no resampling ratio");
  ExpectCallError(OperatorDef("audio_resample").Arg("in_rate", 16000.0), "out_rate", "together");
  ExpectCallError(OperatorDef("audio_resample").Arg("in_rate", 1.0).Arg("out_rate", 2.0).Arg("scale", 2.0), "scale",
                  "one of");
  ExpectCallError(OperatorDef("audio_resample").Arg("scale", 2.0).Arg("out_length", int64_t{5}), "scale", "one of");
  ExpectCallError(OperatorDef("audio_resample").Arg("in_rate", 0.0).Arg("out_rate", 2.0), "in_rate", "0");
  ExpectCallError(OperatorDef("audio_resample").Arg("scale", -1.0), "scale", "-1");
  ExpectCallError(OperatorDef("audio_resample").Arg("scale", 1.0).Arg("quality", -1.0), "quality", "-1");
  ExpectCallError(OperatorDef("audio_resample").Arg("scale", 1.0).Arg("dtype", std::string("float64")), "dtype",
                  "float64");
  // Per sample, the range is checked when the batch runs.
  OpCase c{OperatorDef("audio_resample"), HostBatch::Of<float>({{1.f, 2.f}}, {{2}}), {}};
  c.arg_inputs.push_back({"scale", HostBatch::Of<float>({{-2.f}}, {{}})});
  ExpectRunError(c, "scale");
  ExpectRunError({OperatorDef("audio_resample").Arg("scale", 2.0), HostBatch::Of<float>({{1.f}}, {{1, 1, 1}}), {}},
                 "samples x channels (2-D)");
}

}  // namespace
}  // namespace sluice::testing
