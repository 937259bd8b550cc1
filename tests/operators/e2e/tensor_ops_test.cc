// The tensor utilities (reshape, squeeze, expand_dims, shapes): shapes, layouts, data and DALI's
// argument rules through the pipeline, and the errors naming the operator and argument.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

// A batch to feed through external_source.
struct Src {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TensorShape> shapes;
  DType dtype = DType::kFloat32;
  std::string layout;
};

template <typename T>
Src MakeSrc(const std::vector<TensorShape>& shapes, const std::string& layout = "", int start = 0) {
  Src s;
  s.dtype = kDTypeOf<T>;
  s.layout = layout;
  s.shapes = shapes;
  int v = start;
  for (const auto& sh : shapes) {
    std::vector<T> data(static_cast<size_t>(sh.num_elements()));
    for (auto& x : data) x = static_cast<T>(v++);
    std::vector<uint8_t> b(data.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), data.data(), b.size());
    s.bytes.push_back(std::move(b));
  }
  return s;
}

template <typename T>
Src ListSrc(const std::vector<std::vector<T>>& lists) {
  Src s;
  s.dtype = kDTypeOf<T>;
  for (const auto& l : lists) {
    s.shapes.push_back(TensorShape{static_cast<int64_t>(l.size())});
    std::vector<uint8_t> b(l.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), l.data(), b.size());
    s.bytes.push_back(std::move(b));
  }
  return s;
}

// external_source per input and per argument input -> op; returns the op's outputs.
std::vector<Batch> RunOp(const std::vector<Src>& inputs, OperatorDef op, const std::map<std::string, Src>& arg_inputs = {},
                         int num_outputs = 1) {
  const int n = static_cast<int>(inputs[0].shapes.size());
  Pipeline p(Options(n));
  std::vector<std::pair<std::string, const Src*>> feeds;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const std::string name = "in" + std::to_string(k);
    op.Input(p.AddOperator(OperatorDef("external_source").Name(name))[0]);
    feeds.push_back({name, &inputs[k]});
  }
  for (const auto& [arg, src] : arg_inputs) {
    const std::string name = "arg_" + arg;
    op.ArgInput(arg, p.AddOperator(OperatorDef("external_source").Name(name))[0]);
    feeds.push_back({name, &src});
  }
  auto outs = p.AddOperator(op);
  outs.resize(static_cast<size_t>(num_outputs));
  p.SetOutputs(outs);
  p.Build();
  for (const auto& [name, src] : feeds) {
    std::vector<Pipeline::ExternalSample> batch;
    for (size_t i = 0; i < src->shapes.size(); ++i) batch.push_back({src->bytes[i].data(), src->shapes[i], src->dtype});
    for (int k = 0; k < 2; ++k) p.FeedInput(name, batch, src->layout);
  }
  return p.Run();
}

// The input's bytes equal the output's (shape-only operators).
void ExpectSameData(const Src& in, const Batch& out) {
  ASSERT_EQ(out.num_samples(), static_cast<int>(in.bytes.size()));
  for (int i = 0; i < out.num_samples(); ++i) {
    ASSERT_EQ(out.nbytes(i), in.bytes[static_cast<size_t>(i)].size());
    EXPECT_EQ(std::memcmp(out.data(i), in.bytes[static_cast<size_t>(i)].data(), out.nbytes(i)), 0);
  }
}

// ---- reshape ----

TEST(TensorOps, ReshapeConstantShapeWithWildcard) {
  const Src in = MakeSrc<float>({{4, 6, 3}, {2, 12, 3}}, "HWC");
  auto out = RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(out[0].shape(0), (TensorShape{24, 3}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{24, 3}));
  EXPECT_EQ(out[0].layout(), "");  // ndim changed: layout cleared
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  ExpectSameData(in, out[0]);
}

TEST(TensorOps, ReshapeKeepsLayoutWhenNdimUnchangedAndSetsGivenLayout) {
  const Src in = MakeSrc<uint8_t>({{4, 6, 3}}, "HWC");
  auto same = RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{6, 4, 3}));
  EXPECT_EQ(same[0].layout(), "HWC");
  auto given = RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{3, 24}).Arg("layout", std::string("CX")));
  EXPECT_EQ(given[0].layout(), "CX");
  EXPECT_EQ(given[0].shape(0), (TensorShape{3, 24}));
  ExpectSameData(in, given[0]);
}

TEST(TensorOps, ReshapeRelShapeAndSrcDims) {
  const Src in = MakeSrc<int16_t>({{480 / 10, 640 / 10, 3}});
  // DALI's doc example: [480, 640, 3] with rel_shape [0.5, -1] -> [240, 3840] (here scaled by 1/10).
  auto rel = RunOp({in}, OperatorDef("reshape").Arg("rel_shape", std::vector<double>{0.5, -1.0}));
  EXPECT_EQ(rel[0].shape(0), (TensorShape{24, 384}));
  // DALI's doc example: [300, 200, 1] with src_dims [-1, 1, 0] -> [1, 200, 300].
  const Src in2 = MakeSrc<int16_t>({{30, 20, 1}});
  auto src = RunOp({in2}, OperatorDef("reshape").Arg("src_dims", std::vector<int64_t>{-1, 1, 0}));
  EXPECT_EQ(src[0].shape(0), (TensorShape{1, 20, 30}));
  ExpectSameData(in2, src[0]);
  auto both = RunOp({in2}, OperatorDef("reshape").Arg("src_dims", std::vector<int64_t>{1, 0}).Arg("rel_shape", std::vector<double>{0.5, 2.0}));
  EXPECT_EQ(both[0].shape(0), (TensorShape{10, 60}));
}

TEST(TensorOps, ReshapeShapePerSampleAndAsInput) {
  const Src in = MakeSrc<double>({{2, 6}, {3, 4}});
  auto per_sample = RunOp({in}, OperatorDef("reshape"), {{"shape", ListSrc<int32_t>({{3, 4}, {-1, 2}})}});
  EXPECT_EQ(per_sample[0].shape(0), (TensorShape{3, 4}));
  EXPECT_EQ(per_sample[0].shape(1), (TensorShape{6, 2}));
  ExpectSameData(in, per_sample[0]);
  auto as_input = RunOp({in, ListSrc<int64_t>({{6, 2}, {4, 3}})}, OperatorDef("reshape"));
  EXPECT_EQ(as_input[0].shape(0), (TensorShape{6, 2}));
  EXPECT_EQ(as_input[0].shape(1), (TensorShape{4, 3}));
  ExpectSameData(in, as_input[0]);
}

TEST(TensorOps, ReshapeErrorsNameOperatorAndArgument) {
  const Src in = MakeSrc<float>({{4, 6}});
  ExpectError([&] { RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{5, 5})); }, {"reshape", "shape", "25", "24"});
  ExpectError([&] { RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{-1, -1})); }, {"reshape", "shape", "wildcard"});
  ExpectError([&] { RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{-1, 5})); }, {"reshape", "shape", "multiple of 5"});
  ExpectError([&] { RunOp({in}, OperatorDef("reshape").Arg("src_dims", std::vector<int64_t>{2, 0})); }, {"reshape", "src_dims", "out of range"});
  ExpectError([&] {
    RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{24}).Arg("rel_shape", std::vector<double>{1.0}));
  }, {"reshape", "shape", "rel_shape"});
  ExpectError([&] { RunOp({in}, OperatorDef("reshape").Arg("shape", std::vector<int64_t>{24}).Arg("layout", std::string("HW"))); },
              {"reshape", "layout", "HW"});
  const Src two = MakeSrc<float>({{4, 6}, {4, 6}});
  ExpectError([&] { RunOp({two}, OperatorDef("reshape"), {{"shape", ListSrc<int32_t>({{24}, {4, 6}})}}); },
              {"reshape", "number of dimensions"});
}

// ---- squeeze ----

TEST(TensorOps, SqueezeAxesAndAxisNames) {
  const Src in = MakeSrc<int32_t>({{1, 5, 1, 3}, {1, 2, 1, 3}}, "FHWC");
  auto by_axes = RunOp({in}, OperatorDef("squeeze").Arg("axes", std::vector<int64_t>{0, -2}));
  EXPECT_EQ(by_axes[0].shape(0), (TensorShape{5, 3}));
  EXPECT_EQ(by_axes[0].shape(1), (TensorShape{2, 3}));
  EXPECT_EQ(by_axes[0].layout(), "HC");
  ExpectSameData(in, by_axes[0]);
  auto by_names = RunOp({in}, OperatorDef("squeeze").Arg("axis_names", std::string("W")));
  EXPECT_EQ(by_names[0].shape(0), (TensorShape{1, 5, 3}));
  EXPECT_EQ(by_names[0].layout(), "FHC");
  // An empty sample may lose a dimension of any extent (the volume stays 0).
  const Src empty = MakeSrc<int32_t>({{0, 4}});
  EXPECT_EQ(RunOp({empty}, OperatorDef("squeeze").Arg("axes", std::vector<int64_t>{1}))[0].shape(0), (TensorShape{0}));
}

TEST(TensorOps, SqueezeErrors) {
  const Src in = MakeSrc<float>({{1, 5}}, "HW");
  ExpectError([&] { RunOp({in}, OperatorDef("squeeze").Arg("axes", std::vector<int64_t>{1})); }, {"squeeze", "axes", "extent 5"});
  ExpectError([&] { RunOp({in}, OperatorDef("squeeze").Arg("axes", std::vector<int64_t>{2})); }, {"squeeze", "axes", "out of range"});
  ExpectError([&] { RunOp({in}, OperatorDef("squeeze").Arg("axis_names", std::string("C"))); }, {"squeeze", "axis_names", "'C'"});
}

// ---- expand_dims ----

TEST(TensorOps, ExpandDimsInsertsAtOutputPositions) {
  const Src in = MakeSrc<uint16_t>({{5, 3}, {2, 3}}, "HW");
  // NumPy: np.expand_dims(x, (0, 3)).shape == (1, 5, 3, 1)
  auto out = RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{0, 3}).Arg("new_axis_names", std::string("FC")));
  EXPECT_EQ(out[0].shape(0), (TensorShape{1, 5, 3, 1}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{1, 2, 3, 1}));
  EXPECT_EQ(out[0].layout(), "FHWC");
  ExpectSameData(in, out[0]);
  auto unordered = RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{3, 1}).Arg("new_axis_names", std::string("CX")));
  EXPECT_EQ(unordered[0].shape(0), (TensorShape{5, 1, 3, 1}));
  EXPECT_EQ(unordered[0].layout(), "HXWC");
  auto no_names = RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{2}));
  EXPECT_EQ(no_names[0].shape(0), (TensorShape{5, 3, 1}));
  EXPECT_EQ(no_names[0].layout(), "");  // DALI: without new_axis_names the layout is cleared
}

TEST(TensorOps, ExpandDimsErrors) {
  const Src in = MakeSrc<float>({{5, 3}}, "HW");
  ExpectError([&] { RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{3})); }, {"expand_dims", "axes", "out of range"});
  ExpectError([&] { RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{1, 1})); }, {"expand_dims", "axes", "twice"});
  ExpectError([&] {
    RunOp({in}, OperatorDef("expand_dims").Arg("axes", std::vector<int64_t>{0}).Arg("new_axis_names", std::string("AB")));
  }, {"expand_dims", "new_axis_names"});
  ExpectError([&] { RunOp({in}, OperatorDef("expand_dims")); }, {"expand_dims", "axes"});
}

// ---- shapes ----

TEST(TensorOps, ShapesDefaultInt64AndDtype) {
  const Src in = MakeSrc<uint8_t>({{4, 6, 3}, {2, 7, 1}}, "HWC");
  auto out = RunOp({in}, OperatorDef("shapes"));
  EXPECT_EQ(out[0].dtype(), DType::kInt64);
  EXPECT_EQ(SampleData<int64_t>(out[0], 0), (std::vector<int64_t>{4, 6, 3}));
  EXPECT_EQ(SampleData<int64_t>(out[0], 1), (std::vector<int64_t>{2, 7, 1}));
  auto f = RunOp({in}, OperatorDef("shapes").Arg("dtype", std::string("float32")));
  EXPECT_EQ(f[0].dtype(), DType::kFloat32);
  EXPECT_EQ(SampleData<float>(f[0], 1), (std::vector<float>{2, 7, 1}));
  auto i32 = RunOp({in}, OperatorDef("shapes").Arg("dtype", std::string("int32")));
  EXPECT_EQ(SampleData<int32_t>(i32[0], 0), (std::vector<int32_t>{4, 6, 3}));
}


// ---- cat / stack ----

// Reads a sample as int32 values (the test sources count up from `start`).
std::vector<int32_t> I32(const Batch& b, int i) { return SampleData<int32_t>(b, i); }

TEST(TensorOps, CatMatchesConcatenate) {
  // Three inputs, axis 1 of [2, k, 3]: np.concatenate([a, b, c], axis=1).
  const Src a = MakeSrc<int32_t>({{2, 1, 3}}, "HWC", 0), b = MakeSrc<int32_t>({{2, 2, 3}}, "HWC", 100),
            c = MakeSrc<int32_t>({{2, 1, 3}}, "", 200);
  auto out = RunOp({a, b, c}, OperatorDef("cat").Arg("axis", int64_t{1}));
  EXPECT_EQ(out[0].shape(0), (TensorShape{2, 4, 3}));
  EXPECT_EQ(out[0].layout(), "HWC");
  EXPECT_EQ(I32(out[0], 0), (std::vector<int32_t>{0, 1, 2, 100, 101, 102, 103, 104, 105, 200, 201, 202,
                                                  3, 4, 5, 106, 107, 108, 109, 110, 111, 203, 204, 205}));
  auto by_name = RunOp({a, b, c}, OperatorDef("cat").Arg("axis_name", std::string("W")));
  EXPECT_EQ(I32(by_name[0], 0), I32(out[0], 0));
  auto neg = RunOp({a, a}, OperatorDef("cat").Arg("axis", int64_t{-1}));
  EXPECT_EQ(neg[0].shape(0), (TensorShape{2, 1, 6}));
  EXPECT_EQ(I32(neg[0], 0), (std::vector<int32_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  auto first = RunOp({a, b}, OperatorDef("cat").Arg("axis", int64_t{1}));
  EXPECT_EQ(first[0].shape(0), (TensorShape{2, 3, 3}));
}

TEST(TensorOps, StackMatchesNumpyStack) {
  const Src a = MakeSrc<float>({{2, 3}, {1, 2}}, "HW", 0), b = MakeSrc<float>({{2, 3}, {1, 2}}, "HW", 100);
  auto out0 = RunOp({a, b}, OperatorDef("stack").Arg("axis_name", std::string("C")));
  EXPECT_EQ(out0[0].shape(0), (TensorShape{2, 2, 3}));
  EXPECT_EQ(out0[0].layout(), "CHW");  // DALI's doc example
  EXPECT_EQ(SampleData<float>(out0[0], 0), (std::vector<float>{0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104, 105}));
  // axis == ndim interleaves: np.stack([a, b], axis=2)
  auto out2 = RunOp({a, b}, OperatorDef("stack").Arg("axis", int64_t{2}).Arg("axis_name", std::string("C")));
  EXPECT_EQ(out2[0].shape(0), (TensorShape{2, 3, 2}));
  EXPECT_EQ(out2[0].layout(), "HWC");
  EXPECT_EQ(SampleData<float>(out2[0], 0), (std::vector<float>{0, 100, 1, 101, 2, 102, 3, 103, 4, 104, 5, 105}));
  EXPECT_EQ(SampleData<float>(out2[0], 1), (std::vector<float>{6, 106, 7, 107}));
  // np.stack([a, b], axis=1) and axis=-1 (== 2)
  auto out1 = RunOp({a, b}, OperatorDef("stack").Arg("axis", int64_t{1}));
  EXPECT_EQ(out1[0].shape(0), (TensorShape{2, 2, 3}));
  EXPECT_EQ(out1[0].layout(), "");
  EXPECT_EQ(SampleData<float>(out1[0], 0), (std::vector<float>{0, 1, 2, 100, 101, 102, 3, 4, 5, 103, 104, 105}));
  auto neg = RunOp({a, b}, OperatorDef("stack").Arg("axis", int64_t{-1}));
  EXPECT_EQ(SampleData<float>(neg[0], 0), SampleData<float>(out2[0], 0));
}

TEST(TensorOps, CatStackErrors) {
  const Src a = MakeSrc<int32_t>({{2, 3}}, "HW"), b = MakeSrc<int32_t>({{3, 3}}, "HW"), f = MakeSrc<float>({{2, 3}}, "HW"),
            other = MakeSrc<int32_t>({{2, 3}}, "WH");
  ExpectError([&] { RunOp({a, b}, OperatorDef("cat").Arg("axis", int64_t{1})); }, {"cat", "input 1", "(3, 3)", "(2, 3)"});
  ExpectError([&] { RunOp({a, f}, OperatorDef("cat")); }, {"cat", "same type"});
  ExpectError([&] { RunOp({a, a}, OperatorDef("cat").Arg("axis", int64_t{2})); }, {"cat", "axis", "out of range"});
  ExpectError([&] { RunOp({a, a}, OperatorDef("cat").Arg("axis_name", std::string("C"))); }, {"cat", "axis_name", "'C'"});
  ExpectError([&] { RunOp({a, other}, OperatorDef("cat")); }, {"cat", "layout"});
  ExpectError([&] { RunOp({a, b}, OperatorDef("stack")); }, {"stack", "equal shapes"});
  ExpectError([&] { RunOp({a, a}, OperatorDef("stack").Arg("axis", int64_t{3})); }, {"stack", "axis", "out of range"});
  ExpectError([&] { RunOp({a, a}, OperatorDef("stack").Arg("axis_name", std::string("CD"))); }, {"stack", "axis_name"});
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

using namespace sluice::testing;

// ---- reductions ----

// x[a][b][c] = (a*B*C + b*C + c) * 7 % 19 - 5, as int32 or double.
template <typename T>
std::vector<T> Values(int64_t n) {
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<T>((i * 7) % 19 - 5);
  return v;
}

template <typename T>
Src ValuesSrc(const std::vector<TensorShape>& shapes, const std::string& layout) {
  Src s = MakeSrc<T>(shapes, layout);
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto v = Values<T>(shapes[k].num_elements());
    std::memcpy(s.bytes[k].data(), v.data(), s.bytes[k].size());
  }
  return s;
}

TEST(TensorOps, ReductionsShapesLayoutsAndTypes) {
  // [2, 3, 4] "HWC": reduce W.
  const Src in = ValuesSrc<int32_t>({{2, 3, 4}, {1, 2, 4}}, "HWC");
  auto sum = RunOp({in}, OperatorDef("reductions.sum").Arg("axes", std::vector<int64_t>{1}));
  EXPECT_EQ(sum[0].dtype(), DType::kInt64);  // DALI: signed integers sum into int64
  EXPECT_EQ(sum[0].shape(0), (TensorShape{2, 4}));
  EXPECT_EQ(sum[0].layout(), "HC");
  // NumPy: x.reshape(2,3,4).sum(axis=1)
  const auto x = Values<int32_t>(24);
  std::vector<int64_t> ref(8, 0);
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) ref[static_cast<size_t>(a * 4 + c)] += x[static_cast<size_t>((a * 3 + b) * 4 + c)];
  EXPECT_EQ(SampleData<int64_t>(sum[0], 0), ref);
  auto keep = RunOp({in}, OperatorDef("reductions.max").Arg("axis_names", std::string("HW")).Arg("keep_dims", true));
  EXPECT_EQ(keep[0].dtype(), DType::kInt32);
  EXPECT_EQ(keep[0].shape(1), (TensorShape{1, 1, 4}));
  EXPECT_EQ(keep[0].layout(), "HWC");
  auto all = RunOp({in}, OperatorDef("reductions.min"));
  EXPECT_EQ(all[0].shape(0), (TensorShape{}));
  EXPECT_EQ(SampleData<int32_t>(all[0], 0), (std::vector<int32_t>{-5}));
  auto mean = RunOp({in}, OperatorDef("reductions.mean"));
  EXPECT_EQ(mean[0].dtype(), DType::kFloat32);
  double s = 0;
  for (int32_t v : x) s += v;
  EXPECT_FLOAT_EQ(SampleData<float>(mean[0], 0)[0], static_cast<float>(s / 24));
}

TEST(TensorOps, ReductionsStatisticsMatchNumpyFormulas) {
  const Src in = ValuesSrc<double>({{3, 5}}, "HW");
  const auto x = Values<double>(15);
  // Per row (axis 1): mean, mean_square, rms, variance and std_dev with ddof 1.
  auto out = RunOp({in}, OperatorDef("reductions.mean_square").Arg("axes", std::vector<int64_t>{-1}).Arg("dtype", std::string("float64")));
  auto rms = RunOp({in}, OperatorDef("reductions.rms").Arg("axes", std::vector<int64_t>{1}).Arg("dtype", std::string("float64")));
  std::vector<double> m(3, 0), ms(3, 0), var(3, 0);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 5; ++c) { m[r] += x[r * 5 + c] / 5; ms[r] += x[r * 5 + c] * x[r * 5 + c] / 5; }
    for (int c = 0; c < 5; ++c) var[r] += (x[r * 5 + c] - m[r]) * (x[r * 5 + c] - m[r]) / 4;
  }
  Src mean_src = ListSrc<double>({m});
  auto v = RunOp({in, mean_src}, OperatorDef("reductions.variance").Arg("axes", std::vector<int64_t>{1}).Arg("ddof", int64_t{1}));
  auto sd = RunOp({in, mean_src}, OperatorDef("reductions.std_dev").Arg("axes", std::vector<int64_t>{1}).Arg("ddof", int64_t{1}));
  EXPECT_EQ(v[0].dtype(), DType::kFloat32);
  const auto got_ms = SampleData<double>(out[0], 0), got_rms = SampleData<double>(rms[0], 0);
  const auto got_v = SampleData<float>(v[0], 0), got_sd = SampleData<float>(sd[0], 0);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_DOUBLE_EQ(got_ms[r], ms[r]);
    EXPECT_DOUBLE_EQ(got_rms[r], std::sqrt(ms[r]));
    EXPECT_FLOAT_EQ(got_v[r], static_cast<float>(var[r]));
    EXPECT_FLOAT_EQ(got_sd[r], static_cast<float>(std::sqrt(var[r])));
  }
}

TEST(TensorOps, ReductionsSumDtypeRules) {
  const Src in = MakeSrc<uint8_t>({{2, 200}}, "");
  auto wide = RunOp({in}, OperatorDef("reductions.sum"));
  EXPECT_EQ(wide[0].dtype(), DType::kInt64);
  int64_t ref = 0;
  for (int i = 0; i < 400; ++i) ref += i % 256;
  EXPECT_EQ(SampleData<int64_t>(wide[0], 0)[0], ref);
  auto narrow = RunOp({in}, OperatorDef("reductions.sum").Arg("dtype", std::string("uint8")));
  EXPECT_EQ(SampleData<uint8_t>(narrow[0], 0)[0], static_cast<uint8_t>(ref & 0xff));  // wraps, as np.sum(dtype=uint8)
  auto f = RunOp({in}, OperatorDef("reductions.sum").Arg("dtype", std::string("float32")));
  EXPECT_FLOAT_EQ(SampleData<float>(f[0], 0)[0], static_cast<float>(ref));
  const Src fl = MakeSrc<float>({{4}}, "");
  EXPECT_EQ(RunOp({fl}, OperatorDef("reductions.sum"))[0].dtype(), DType::kFloat32);
}

TEST(TensorOps, ReductionsErrors) {
  const Src in = MakeSrc<int32_t>({{2, 3}}, "HW");
  ExpectError([&] { RunOp({in}, OperatorDef("reductions.sum").Arg("axes", std::vector<int64_t>{2})); }, {"reductions.sum", "axes", "out of range"});
  ExpectError([&] { RunOp({in}, OperatorDef("reductions.max").Arg("axis_names", std::string("C"))); }, {"reductions.max", "axis_names", "'C'"});
  ExpectError([&] { RunOp({in}, OperatorDef("reductions.sum").Arg("dtype", std::string("int16"))); }, {"reductions.sum", "dtype", "int16"});
  ExpectError([&] { RunOp({in}, OperatorDef("reductions.mean").Arg("axes", std::vector<int64_t>{0, -2})); }, {"reductions.mean", "axes", "twice"});
  ExpectError([&] {
    RunOp({in, ListSrc<float>({{1, 2}})}, OperatorDef("reductions.std_dev").Arg("axes", std::vector<int64_t>{0}));
  }, {"reductions.std_dev", "mean", "(2,)", "(3,)"});
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

using namespace sluice::testing;

// ---- element_extract ----

TEST(TensorOps, ElementExtractOneOutputPerElement) {
  const Src in = MakeSrc<int32_t>({{4, 2, 3}, {3, 1, 2}}, "FHW");
  auto out = RunOp({in}, OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{2, 0}), {}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(0), (TensorShape{2, 3}));
  EXPECT_EQ(out[0].layout(), "HW");
  EXPECT_EQ(SampleData<int32_t>(out[0], 0), (std::vector<int32_t>{12, 13, 14, 15, 16, 17}));  // x[2]
  EXPECT_EQ(SampleData<int32_t>(out[1], 0), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));        // x[0]
  EXPECT_EQ(SampleData<int32_t>(out[0], 1), (std::vector<int32_t>{24 + 4, 24 + 5}));
  auto scalar = RunOp({in}, OperatorDef("element_extract").Arg("element_map", int64_t{1}));
  EXPECT_EQ(SampleData<int32_t>(scalar[0], 1), (std::vector<int32_t>{26, 27}));
}

TEST(TensorOps, ElementExtractErrors) {
  const Src in = MakeSrc<int32_t>({{3, 2}}, "FH"), bad_layout = MakeSrc<int32_t>({{3, 2}}, "HW");
  ExpectError([&] { RunOp({in}, OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{3})); },
              {"element_extract", "element_map", "out of range", "3 elements"});
  ExpectError([&] { RunOp({in}, OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{-1})); },
              {"element_extract", "element_map", "negative"});
  ExpectError([&] { RunOp({bad_layout}, OperatorDef("element_extract").Arg("element_map", std::vector<int64_t>{0})); },
              {"element_extract", "layout", "F"});
}

}  // namespace
}  // namespace sluice
