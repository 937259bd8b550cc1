// The operators color_space_conversion, equalize, lookup_table and normalize through the pipeline:
// DALI's formulas (the kernels are checked against independent references in
// tests/kernels/color_space_normalize_test.cc), layouts, per-sample argument inputs, output types,
// and errors that name the operator's argument.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <numeric>
#include <random>

#include "kernels/color/color_space.h"
#include "kernels/color/equalize.h"
#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

template <typename T>
std::vector<T> Noise(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng() & 0xff);
  return v;
}

struct Feed {
  std::vector<std::vector<uint8_t>> data;  // raw bytes of each sample
  std::vector<TensorShape> shapes;
  DType dtype = DType::kUInt8;
  std::string layout = "HWC";
};

Feed Images(int n, std::vector<int64_t> shape = {9, 11, 3}, std::string layout = "HWC") {
  Feed f;
  f.layout = std::move(layout);
  for (int i = 0; i < n; ++i) {
    TensorShape s(shape);
    f.data.push_back(Noise<uint8_t>(static_cast<size_t>(s.num_elements()), static_cast<uint32_t>(i + 1)));
    f.shapes.push_back(s);
  }
  return f;
}

template <typename T>
Feed Typed(const std::vector<std::vector<T>>& samples, const std::vector<TensorShape>& shapes, DType t,
           std::string layout) {
  Feed f;
  f.dtype = t;
  f.layout = std::move(layout);
  f.shapes = shapes;
  for (const auto& s : samples) {
    std::vector<uint8_t> b(s.size() * sizeof(T));
    std::memcpy(b.data(), s.data(), b.size());
    f.data.push_back(b);
  }
  return f;
}

// external_source -> op; `arg_inputs` are fed as per-sample argument inputs from further
// external sources (one float32 tensor per sample).
struct ArgFeed {
  std::string name;
  std::vector<std::vector<float>> values;
  std::vector<TensorShape> shapes;
};

std::vector<Batch> RunOp(const Feed& f, OperatorDef op, const std::vector<ArgFeed>& arg_inputs = {}, int threads = 2) {
  Pipeline p(Options(static_cast<int>(f.data.size()), threads));
  auto e = p.AddOperator(OperatorDef("external_source").Name("src"))[0];
  op.Input(e);
  for (const auto& a : arg_inputs) {
    auto src = p.AddOperator(OperatorDef("external_source").Name("arg_" + a.name))[0];
    op.ArgInput(a.name, src);
  }
  p.SetOutputs({p.AddOperator(op)[0]});
  p.Build();
  for (int k = 0; k < 2; ++k) {
    std::vector<Pipeline::ExternalSample> batch;
    for (size_t i = 0; i < f.data.size(); ++i) batch.push_back({f.data[i].data(), f.shapes[i], f.dtype});
    p.FeedInput("src", batch, f.layout);
    for (const auto& a : arg_inputs) {
      std::vector<Pipeline::ExternalSample> ab;
      for (size_t i = 0; i < a.values.size(); ++i) ab.push_back({a.values[i].data(), a.shapes[i], DType::kFloat32});
      p.FeedInput("arg_" + a.name, ab, "");
    }
  }
  return p.Run();
}

TEST(ColorSpaceOps, ConversionsMatchTheKernelAndShapes) {
  const Feed f = Images(3);
  struct Case { std::string from, to; int out_c; };
  for (const Case& c : {Case{"RGB", "YCbCr", 3}, Case{"RGB", "GRAY", 1}, Case{"BGR", "RGB", 3}, Case{"YCbCr", "BGR", 3}}) {
    auto out = RunOp(f, OperatorDef("color_space_conversion").Arg("image_type", c.from).Arg("output_type", c.to));
    ASSERT_EQ(out[0].dtype(), DType::kUInt8);
    EXPECT_EQ(out[0].layout(), "HWC");
    for (int i = 0; i < 3; ++i) {
      ASSERT_EQ(out[0].shape(i), (TensorShape{9, 11, c.out_c}));
      std::vector<uint8_t> ref(static_cast<size_t>(99 * c.out_c));
      kernels::ConvertColorSpace(f.data[static_cast<size_t>(i)].data(), *kernels::ParseColorSpace(c.from), ref.data(),
                                 *kernels::ParseColorSpace(c.to), DType::kUInt8, 99);
      EXPECT_EQ(SampleData<uint8_t>(out[0], i), ref) << c.from << "->" << c.to;
    }
  }
  // GRAY input (1 channel) and DALI's integer spellings (types.GRAY = 2, types.YCbCr = 3).
  auto g = RunOp(Images(2, {5, 4, 1}), OperatorDef("color_space_conversion").Arg("image_type", int64_t{2}).Arg("output_type", int64_t{3}));
  EXPECT_EQ(g[0].shape(0), (TensorShape{5, 4, 3}));
  // float32 keeps float32.
  std::vector<std::vector<float>> fl = {std::vector<float>(12, 0.5f)};
  auto fo = RunOp(Typed(fl, {TensorShape{2, 2, 3}}, DType::kFloat32, "HWC"),
                  OperatorDef("color_space_conversion").Arg("image_type", std::string("RGB")).Arg("output_type", std::string("GRAY")));
  ASSERT_EQ(fo[0].dtype(), DType::kFloat32);
  for (float v : SampleData<float>(fo[0], 0)) EXPECT_NEAR(v, 0.5, 1e-6);
}

TEST(ColorSpaceOps, Errors) {
  auto def = [](std::string a, std::string b) {
    return OperatorDef("color_space_conversion").Arg("image_type", a).Arg("output_type", b);
  };
  ExpectError([&] { RunOp(Images(1, {3, 8, 8}, "CHW"), def("RGB", "GRAY")); }, {"color_space_conversion", "'CHW'"});
  ExpectError([&] { RunOp(Images(1, {4, 4, 1}), def("RGB", "GRAY")); }, {"argument 'image_type'", "(4, 4, 1)"});
  ExpectError([&] { RunOp(Images(1), def("HSV", "GRAY")); }, {"argument 'image_type'"});
  ExpectError([&] { RunOp(Images(1), def("RGB", "Lab")); }, {"argument 'output_type'"});
  ExpectError([&] { RunOp(Images(1), OperatorDef("color_space_conversion").Arg("image_type", std::string("RGB"))); },
              {"output_type"});
}

TEST(EqualizeOps, LayoutsMatchThePerChannelKernel) {
  const Feed hwc = Images(2, {20, 30, 3});
  auto out = RunOp(hwc, OperatorDef("equalize"));
  for (int i = 0; i < 2; ++i) {
    std::vector<uint8_t> ref(hwc.data[static_cast<size_t>(i)].size());
    kernels::Equalize(hwc.data[static_cast<size_t>(i)].data(), ref.data(), 600, 3);
    EXPECT_EQ(SampleData<uint8_t>(out[0], i), ref);
  }
  // CHW gives the transposed result of HWC.
  Feed chw = Images(1, {3, 20, 30}, "CHW");
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 600; ++p) chw.data[0][static_cast<size_t>(c * 600 + p)] = hwc.data[0][static_cast<size_t>(p * 3 + c)];
  auto oc = RunOp(chw, OperatorDef("equalize"));
  const auto got = SampleData<uint8_t>(oc[0], 0), want = SampleData<uint8_t>(out[0], 0);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 600; ++p) ASSERT_EQ(got[static_cast<size_t>(c * 600 + p)], want[static_cast<size_t>(p * 3 + c)]);
  EXPECT_EQ(oc[0].layout(), "CHW");
  // HW and a sequence of frames: each frame on its own.
  auto hw = RunOp(Images(1, {20, 30}, "HW"), OperatorDef("equalize"));
  EXPECT_EQ(hw[0].shape(0), (TensorShape{20, 30}));
  Feed seq = Images(1, {2, 20, 30, 3}, "FHWC");
  std::copy(hwc.data[1].begin(), hwc.data[1].end(), seq.data[0].begin() + 1800);
  std::copy(hwc.data[0].begin(), hwc.data[0].end(), seq.data[0].begin());
  auto os = RunOp(seq, OperatorDef("equalize"));
  auto sd = SampleData<uint8_t>(os[0], 0);
  EXPECT_EQ(std::vector<uint8_t>(sd.begin(), sd.begin() + 1800), SampleData<uint8_t>(out[0], 0));
  EXPECT_EQ(std::vector<uint8_t>(sd.begin() + 1800, sd.end()), SampleData<uint8_t>(out[0], 1));
}

TEST(EqualizeOps, Errors) {
  ExpectError([&] { RunOp(Images(1, {2, 3, 4, 5}, "NHWC"), OperatorDef("equalize")); }, {"equalize", "'NHWC'"});
  std::vector<std::vector<float>> fl = {std::vector<float>(12, 0.5f)};
  ExpectError([&] { RunOp(Typed(fl, {TensorShape{2, 2, 3}}, DType::kFloat32, "HWC"), OperatorDef("equalize")); },
              {"equalize", "images"});
}

TEST(LookupTableOps, MapsWithDefaultAndDtype) {
  std::vector<std::vector<int32_t>> in = {{1, 4, 1, 0, 100, 2, 3, 4}, {-1, 5}};
  auto f = Typed(in, {TensorShape{8}, TensorShape{2}}, DType::kInt32, "");
  auto out = RunOp(f, OperatorDef("lookup_table")
                          .Arg("keys", std::vector<int64_t>{0, 2, 3, 4, 5, 3})
                          .Arg("values", std::vector<double>{0.2, 0.4, 0.5, 0.6, 0.7, 0.10})
                          .Arg("default_value", 0.99));
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);  // DALI's default dtype
  EXPECT_EQ(SampleData<float>(out[0], 0), (std::vector<float>{0.99f, 0.6f, 0.99f, 0.2f, 0.99f, 0.4f, 0.10f, 0.6f}));
  EXPECT_EQ(SampleData<float>(out[0], 1), (std::vector<float>{0.99f, 0.7f}));
  // uint8 image -> uint8 (a solarize-style table), layout kept.
  const Feed img = Images(1);
  std::vector<int64_t> keys(256);
  std::iota(keys.begin(), keys.end(), 0);
  std::vector<double> values;
  for (int k = 0; k < 256; ++k) values.push_back(k < 128 ? k : 255 - k);
  auto o = RunOp(img, OperatorDef("lookup_table").Arg("keys", keys).Arg("values", values).Arg("dtype", std::string("uint8")));
  EXPECT_EQ(o[0].layout(), "HWC");
  const auto got = SampleData<uint8_t>(o[0], 0);
  for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], img.data[0][k] < 128 ? img.data[0][k] : 255 - img.data[0][k]);
}

TEST(LookupTableOps, Errors) {
  auto run = [](OperatorDef d) { RunOp(Images(1), std::move(d)); };
  ExpectError([&] { run(OperatorDef("lookup_table").Arg("keys", std::vector<int64_t>{1, 2}).Arg("values", std::vector<double>{1})); },
              {"lookup_table", "argument 'values'"});
  ExpectError([&] { run(OperatorDef("lookup_table").Arg("keys", std::vector<int64_t>{70000}).Arg("values", std::vector<double>{1})); },
              {"lookup_table", "argument 'keys'"});
  ExpectError([&] { run(OperatorDef("lookup_table").Arg("dtype", std::string("float16"))); }, {"argument 'dtype'"});
  std::vector<std::vector<float>> fl = {std::vector<float>(4, 1.0f)};
  ExpectError([&] { RunOp(Typed(fl, {TensorShape{4}}, DType::kFloat32, ""), OperatorDef("lookup_table")); },
              {"lookup_table"});
}

// Mean/stddev of the HW axes per channel of an HWC uint8 sample, computed directly.
void ChannelStats(const std::vector<uint8_t>& x, int c, std::vector<double>& mean, std::vector<double>& sd, int ddof) {
  const size_t n = x.size() / static_cast<size_t>(c);
  mean.assign(static_cast<size_t>(c), 0);
  sd.assign(static_cast<size_t>(c), 0);
  for (size_t p = 0; p < n; ++p)
    for (int k = 0; k < c; ++k) mean[static_cast<size_t>(k)] += x[p * static_cast<size_t>(c) + static_cast<size_t>(k)];
  for (auto& m : mean) m /= static_cast<double>(n);
  for (size_t p = 0; p < n; ++p)
    for (int k = 0; k < c; ++k) {
      const double d = x[p * static_cast<size_t>(c) + static_cast<size_t>(k)] - mean[static_cast<size_t>(k)];
      sd[static_cast<size_t>(k)] += d * d;
    }
  for (auto& s : sd) s = std::sqrt(s / static_cast<double>(n - static_cast<size_t>(ddof)));
}

TEST(NormalizeOps, ComputedPerChannelWithAxisNamesDdofScaleShift) {
  const Feed f = Images(3, {12, 10, 3});
  auto out = RunOp(f, OperatorDef("normalize").Arg("axis_names", std::string("HW")).Arg("ddof", int64_t{1})
                          .Arg("scale", 64.0).Arg("shift", 128.0).Arg("epsilon", 0.5));
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(out[0].layout(), "HWC");
  for (int i = 0; i < 3; ++i) {
    std::vector<double> m, s;
    ChannelStats(f.data[static_cast<size_t>(i)], 3, m, s, 1);
    const auto got = SampleData<float>(out[0], i);
    for (size_t k = 0; k < got.size(); ++k) {
      const size_t c = k % 3;
      const double want = (f.data[static_cast<size_t>(i)][k] - m[c]) * 64 / std::sqrt(s[c] * s[c] + 0.5) + 128;
      ASSERT_NEAR(got[k], want, 1e-3) << i << " " << k;
    }
  }
  // axes = [0, 1] (and negative [-3, -2]) give the same.
  auto a = RunOp(f, OperatorDef("normalize").Arg("axes", std::vector<int64_t>{0, 1}).Arg("ddof", int64_t{1})
                        .Arg("scale", 64.0).Arg("shift", 128.0).Arg("epsilon", 0.5));
  auto b = RunOp(f, OperatorDef("normalize").Arg("axes", std::vector<int64_t>{-3, -2}).Arg("ddof", int64_t{1})
                        .Arg("scale", 64.0).Arg("shift", 128.0).Arg("epsilon", 0.5));
  EXPECT_EQ(AllBytes(out), AllBytes(a));
  EXPECT_EQ(AllBytes(out), AllBytes(b));
}

TEST(NormalizeOps, GivenMeanStddevConstantsAndIntegerOutput) {
  const Feed f = Images(2);
  auto out = RunOp(f, OperatorDef("normalize").Arg("mean", 100.0).Arg("stddev", 20.0).Arg("scale", 10.0)
                          .Arg("shift", 128.0).Arg("dtype", std::string("uint8")));
  ASSERT_EQ(out[0].dtype(), DType::kUInt8);
  const auto got = SampleData<uint8_t>(out[0], 1);
  for (size_t k = 0; k < got.size(); ++k) {
    const double v = (f.data[1][k] - 100.0) * 10 / 20 + 128;
    ASSERT_LE(std::abs(got[k] - std::clamp(std::nearbyint(v), 0.0, 255.0)), 1) << k;
  }
  // Default: every axis, population stddev: the output has mean 0 and stddev 1.
  auto z = RunOp(f, OperatorDef("normalize"));
  const auto v = SampleData<float>(z[0], 0);
  double m = 0, s = 0;
  for (float x : v) m += x;
  m /= static_cast<double>(v.size());
  for (float x : v) s += (x - m) * (x - m);
  EXPECT_NEAR(m, 0, 1e-4);
  EXPECT_NEAR(std::sqrt(s / static_cast<double>(v.size())), 1, 1e-4);
  // A constant sample with epsilon 0 maps to shift (no division by zero).
  auto c = RunOp(Typed(std::vector<std::vector<float>>{std::vector<float>(6, 3.0f)}, {TensorShape{6}}, DType::kFloat32, ""),
                 OperatorDef("normalize").Arg("shift", 5.0));
  for (float x : SampleData<float>(c[0], 0)) EXPECT_EQ(x, 5.0f);
}

TEST(NormalizeOps, PerSampleMeanAndStddevInputsInferTheAxes) {
  const Feed f = Images(2, {4, 5, 3});
  ArgFeed mean{"mean", {{10, 20, 30}, {40, 50, 60}}, {TensorShape{1, 1, 3}, TensorShape{1, 1, 3}}};
  ArgFeed sd{"stddev", {{2}, {4}}, {TensorShape{1}, TensorShape{1}}};  // scalars per sample
  auto out = RunOp(f, OperatorDef("normalize"), {mean, sd});
  for (int i = 0; i < 2; ++i) {
    const auto got = SampleData<float>(out[0], i);
    for (size_t k = 0; k < got.size(); ++k) {
      const double want = (f.data[static_cast<size_t>(i)][k] - mean.values[static_cast<size_t>(i)][k % 3]) /
                          sd.values[static_cast<size_t>(i)][0];
      ASSERT_NEAR(got[k], want, 1e-4);
    }
  }
  // Only mean given, shaped [1, 1, 3]: the stddev is computed over H and W around that mean.
  auto m = RunOp(f, OperatorDef("normalize"), {mean});
  const auto got = SampleData<float>(m[0], 0);
  std::vector<double> ss(3, 0);
  for (size_t k = 0; k < f.data[0].size(); ++k) {
    const double d = f.data[0][k] - mean.values[0][k % 3];
    ss[k % 3] += d * d;
  }
  for (size_t k = 0; k < got.size(); ++k)
    ASSERT_NEAR(got[k], (f.data[0][k] - mean.values[0][k % 3]) / std::sqrt(ss[k % 3] / 20), 1e-4);
}

TEST(NormalizeOps, BatchStatistics) {
  const Feed f = Images(3, {6, 7, 3});
  auto out = RunOp(f, OperatorDef("normalize").Arg("batch", true).Arg("axes", std::vector<int64_t>{0, 1}));
  std::vector<uint8_t> all;
  for (const auto& d : f.data) all.insert(all.end(), d.begin(), d.end());
  std::vector<double> m, s;
  ChannelStats(all, 3, m, s, 0);
  for (int i = 0; i < 3; ++i) {
    const auto got = SampleData<float>(out[0], i);
    for (size_t k = 0; k < got.size(); ++k)
      ASSERT_NEAR(got[k], (f.data[static_cast<size_t>(i)][k] - m[k % 3]) / s[k % 3], 1e-4);
  }
  // Samples of different sizes reduced over H and W only: still fine (the channels match).
  Feed g = Images(1, {6, 7, 3});
  Feed h = Images(1, {3, 5, 3});
  g.data.push_back(h.data[0]);
  g.shapes.push_back(h.shapes[0]);
  EXPECT_NO_THROW(RunOp(g, OperatorDef("normalize").Arg("batch", true).Arg("axis_names", std::string("HW"))));
  ExpectError([&] { RunOp(g, OperatorDef("normalize").Arg("batch", true).Arg("axis_names", std::string("C"))); },
              {"argument 'batch'"});
}

TEST(NormalizeOps, EmptySamplesPassThrough) {
  Feed f = Images(2, {4, 5, 3});
  f.data[1].clear();
  f.shapes[1] = TensorShape{0, 5, 3};
  auto out = RunOp(f, OperatorDef("normalize").Arg("axis_names", std::string("HW")).Arg("ddof", int64_t{1}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{0, 5, 3}));
  EXPECT_EQ(out[0].shape(0), (TensorShape{4, 5, 3}));
}

TEST(NormalizeOps, DeterministicAcrossThreadCounts) {
  const Feed f = Images(5, {8, 8, 3});
  EXPECT_EQ(AllBytes(RunOp(f, OperatorDef("normalize").Arg("axis_names", std::string("HW")), {}, 1)),
            AllBytes(RunOp(f, OperatorDef("normalize").Arg("axis_names", std::string("HW")), {}, 2)));
}

TEST(NormalizeOps, Errors) {
  const Feed f = Images(2, {4, 5, 3});
  auto run = [&](OperatorDef d, std::vector<ArgFeed> a = {}) { RunOp(f, std::move(d), a); };
  ExpectError([&] { run(OperatorDef("normalize").Arg("axes", std::vector<int64_t>{3})); }, {"normalize", "argument 'axes'", "out of range"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("axis_names", std::string("D"))); }, {"argument 'axis_names'", "'D'"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("axes", std::vector<int64_t>{0}).Arg("axis_names", std::string("H"))); },
              {"axes", "axis_names"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("ddof", int64_t{-1})); }, {"argument 'ddof'"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("epsilon", -1.0)); }, {"argument 'epsilon'"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("dtype", std::string("float16"))); }, {"argument 'dtype'"});
  ExpectError([&] { run(OperatorDef("normalize").Arg("axes", std::vector<int64_t>{0, 1, 2}).Arg("ddof", int64_t{60})); },
              {"argument 'ddof'"});
  // Per-sample shapes that do not fit the reduced axes name the argument and the sample.
  ArgFeed bad{"mean", {{1, 2, 3}, {1, 2}}, {TensorShape{1, 1, 3}, TensorShape{1, 1, 2}}};
  ExpectError([&] { run(OperatorDef("normalize").Arg("axis_names", std::string("HW")), {bad}); },
              {"argument 'mean'", "sample 1", "(1, 1, 2)"});
  ArgFeed two_d{"stddev", {{1, 2, 3}, {1, 2, 3}}, {TensorShape{1, 3}, TensorShape{1, 3}}};
  ExpectError([&] { run(OperatorDef("normalize"), {two_d}); }, {"argument 'stddev'"});
  ArgFeed neg{"stddev", {{1}, {-1}}, {TensorShape{1}, TensorShape{1}}};
  ExpectError([&] { run(OperatorDef("normalize"), {neg}); }, {"stddev", ">= 0"});
  ArgFeed ok{"mean", {{1}, {2}}, {TensorShape{1}, TensorShape{1}}};
  ExpectError([&] { run(OperatorDef("normalize").Arg("batch", true), {ok}); }, {"argument 'mean'", "batch"});
}

}  // namespace
}  // namespace sluice
