// constant, full, full_like, zeros, ones, zeros_like, ones_like and cast_like: shapes, types, data
// (against values NumPy gives) and the errors naming the operator and argument.
#include <gtest/gtest.h>
#include <sluice/pipeline.h>

#include <cstring>
#include <map>

#include "operators/e2e/op_test_util.h"

namespace sluice {
namespace {

using namespace sluice::testing;

struct Src {
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<TensorShape> shapes;
  DType dtype = DType::kFloat32;
  std::string layout;
};

template <typename T>
Src Make(const std::vector<TensorShape>& shapes, const std::vector<std::vector<T>>& data, const std::string& layout = "") {
  Src s;
  s.dtype = kDTypeOf<T>;
  s.layout = layout;
  s.shapes = shapes;
  for (const auto& d : data) {
    std::vector<uint8_t> b(d.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), d.data(), b.size());
    s.bytes.push_back(std::move(b));
  }
  return s;
}

// external_source per input / argument input -> op; batch size `n` (for operators without inputs).
std::vector<Batch> RunOp(const std::vector<Src>& inputs, OperatorDef op, const std::map<std::string, Src>& arg_inputs = {},
                         int n = 0, int threads = 2) {
  if (!inputs.empty()) n = static_cast<int>(inputs[0].shapes.size());
  Pipeline p(Options(n, threads));
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
  outs.resize(1);
  p.SetOutputs(outs);
  p.Build();
  for (const auto& [name, src] : feeds) {
    std::vector<Pipeline::ExternalSample> batch;
    for (size_t i = 0; i < src->shapes.size(); ++i) batch.push_back({src->bytes[i].data(), src->shapes[i], src->dtype});
    for (int k = 0; k < 2; ++k) p.FeedInput(name, batch, src->layout);
  }
  return p.Run();
}

TEST(ConstantOps, ConstantIdataFdataShapeAndDtype) {
  // np.array([1, 2, 3, 4, 5, 6], np.int32).reshape(2, 3)
  auto i = RunOp({}, OperatorDef("constant").Arg("idata", std::vector<int64_t>{1, 2, 3, 4, 5, 6})
                         .Arg("shape", std::vector<int64_t>{2, 3}).Arg("layout", std::string("HW")), {}, 3);
  ASSERT_EQ(i[0].num_samples(), 3);
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(i[0].shape(s), (TensorShape{2, 3}));
    EXPECT_EQ(SampleData<int32_t>(i[0], s), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  }
  EXPECT_EQ(i[0].dtype(), DType::kInt32);
  EXPECT_EQ(i[0].layout(), "HW");
  // No shape: 1-D with one element per value; fdata -> float32.
  auto f = RunOp({}, OperatorDef("constant").Arg("fdata", std::vector<double>{0.5, -1.25}), {}, 2);
  EXPECT_EQ(f[0].dtype(), DType::kFloat32);
  EXPECT_EQ(f[0].shape(1), (TensorShape{2}));
  EXPECT_EQ(SampleData<float>(f[0], 1), (std::vector<float>{0.5f, -1.25f}));
  // One value broadcasts to the shape (np.full((2, 2), 7, np.uint8)); shape [] is a scalar.
  auto b = RunOp({}, OperatorDef("constant").Arg("idata", int64_t{7}).Arg("shape", std::vector<int64_t>{2, 2})
                         .Arg("dtype", std::string("uint8")), {}, 1);
  EXPECT_EQ(b[0].dtype(), DType::kUInt8);
  EXPECT_EQ(SampleData<uint8_t>(b[0], 0), (std::vector<uint8_t>{7, 7, 7, 7}));
  auto sc = RunOp({}, OperatorDef("constant").Arg("fdata", 2.5).Arg("shape", std::vector<int64_t>{}).Arg("dtype", std::string("float64")), {}, 1);
  EXPECT_EQ(sc[0].shape(0), TensorShape{});
  EXPECT_EQ(SampleData<double>(sc[0], 0), (std::vector<double>{2.5}));
  // fdata to an integer type: rounds to nearest even and saturates, as cast (np.clip(np.rint(x)...)).
  auto cv = RunOp({}, OperatorDef("constant").Arg("fdata", std::vector<double>{2.5, 3.5, 300.0, -5.0}).Arg("dtype", std::string("uint8")), {}, 1);
  EXPECT_EQ(SampleData<uint8_t>(cv[0], 0), (std::vector<uint8_t>{2, 4, 255, 0}));
}

TEST(ConstantOps, ConstantErrors) {
  ExpectError([] { RunOp({}, OperatorDef("constant"), {}, 1); }, {"constant", "idata", "fdata"});
  ExpectError([] { RunOp({}, OperatorDef("constant").Arg("idata", int64_t{1}).Arg("fdata", 1.0), {}, 1); }, {"constant", "idata", "fdata"});
  ExpectError([] {
    RunOp({}, OperatorDef("constant").Arg("idata", std::vector<int64_t>{1, 2, 3}).Arg("shape", std::vector<int64_t>{2, 2}), {}, 1);
  }, {"constant", "idata", "3 values", "4"});
  ExpectError([] {
    RunOp({}, OperatorDef("constant").Arg("idata", std::vector<int64_t>{1, 2}).Arg("layout", std::string("HW")), {}, 1);
  }, {"constant", "layout"});
}

TEST(ConstantOps, ZerosOnesWithShapeConstantAndPerSample) {
  auto z = RunOp({}, OperatorDef("zeros").Arg("shape", std::vector<int64_t>{2, 3}), {}, 2);
  EXPECT_EQ(z[0].dtype(), DType::kInt32);  // DALI's default
  EXPECT_EQ(z[0].shape(1), (TensorShape{2, 3}));
  EXPECT_EQ(SampleData<int32_t>(z[0], 1), std::vector<int32_t>(6, 0));
  Src shapes = Make<int32_t>({{2}, {1}}, {{1, 4}, {3}});
  auto o = RunOp({}, OperatorDef("ones").Arg("dtype", std::string("float32")), {{"shape", shapes}}, 2);
  EXPECT_EQ(o[0].shape(0), (TensorShape{1, 4}));
  EXPECT_EQ(o[0].shape(1), (TensorShape{3}));
  EXPECT_EQ(SampleData<float>(o[0], 1), std::vector<float>(3, 1.0f));
  auto scalar = RunOp({}, OperatorDef("ones"), {}, 1);
  EXPECT_EQ(scalar[0].shape(0), TensorShape{});
  EXPECT_EQ(SampleData<int32_t>(scalar[0], 0), std::vector<int32_t>{1});
  ExpectError([] { RunOp({}, OperatorDef("zeros").Arg("shape", std::vector<int64_t>{-1}), {}, 1); }, {"zeros", "shape"});
}

TEST(ConstantOps, ZerosLikeOnesLikeKeepShapeLayoutAndType) {
  Src in = Make<uint16_t>({{2, 2}, {1, 3}}, {{1, 2, 3, 4}, {5, 6, 7}}, "");
  auto z = RunOp({in}, OperatorDef("zeros_like"));
  EXPECT_EQ(z[0].dtype(), DType::kUInt16);
  EXPECT_EQ(z[0].shape(0), (TensorShape{2, 2}));
  EXPECT_EQ(SampleData<uint16_t>(z[0], 1), std::vector<uint16_t>(3, 0));
  auto o = RunOp({in}, OperatorDef("ones_like").Arg("dtype", std::string("float64")));
  EXPECT_EQ(o[0].dtype(), DType::kFloat64);
  EXPECT_EQ(SampleData<double>(o[0], 0), std::vector<double>(4, 1.0));
}

TEST(ConstantOps, FullBroadcastsLikeNumPy) {
  // np.full((2, 3), [1, 2, 3]) and np.full((2, 3), [[1], [2]]) and a scalar fill.
  const OperatorDef full = OperatorDef("full").Arg("shape", std::vector<int64_t>{2, 3});
  auto f = RunOp({Make<int16_t>({{3}}, {{1, 2, 3}})}, full);
  EXPECT_EQ(f[0].dtype(), DType::kInt16);
  EXPECT_EQ(SampleData<int16_t>(f[0], 0), (std::vector<int16_t>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(SampleData<int16_t>(RunOp({Make<int16_t>({{2, 1}}, {{1, 2}})}, full)[0], 0), (std::vector<int16_t>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(SampleData<int16_t>(RunOp({Make<int16_t>({{}}, {{9}})}, full)[0], 0), std::vector<int16_t>(6, 9));
  Src bad = Make<float>({{4}}, {{1, 2, 3, 4}});
  ExpectError([&] { RunOp({bad}, OperatorDef("full").Arg("shape", std::vector<int64_t>{2, 3})); }, {"full", "fill_value", "[4]", "[2, 3]"});
}

// DALI 2.4: full_like's output has data_like's type (its golden), fill_value converted as `cast`
// converts (ties away from zero, saturated).
TEST(ConstantOps, FullLikeTakesShapeAndTypeOfData) {
  Src like = Make<uint8_t>({{2, 2, 1}, {1, 3, 1}}, {{0, 0, 0, 0}, {0, 0, 0}}, "HWC");
  Src fill = Make<float>({{1}, {1}}, {{1.5f}, {-2.0f}});
  auto f = RunOp({like, fill}, OperatorDef("full_like"));
  EXPECT_EQ(f[0].dtype(), DType::kUInt8);
  EXPECT_EQ(f[0].layout(), "HWC");
  EXPECT_EQ(f[0].shape(1), (TensorShape{1, 3, 1}));
  EXPECT_EQ(SampleData<uint8_t>(f[0], 0), std::vector<uint8_t>(4, 2));
  EXPECT_EQ(SampleData<uint8_t>(f[0], 1), std::vector<uint8_t>(3, 0));
}

TEST(ConstantOps, CastLikeConvertsToTheSecondInputsType) {
  Src data = Make<float>({{4}}, {{1.5f, 2.5f, -3.7f, 1000.0f}}, "");
  Src like = Make<int8_t>({{1}}, {{0}});
  auto c = RunOp({data, like}, OperatorDef("cast_like"));
  EXPECT_EQ(c[0].dtype(), DType::kInt8);
  // cast's rule: round half away from zero (DALI 2.4's CPU cast), saturate.
  EXPECT_EQ(SampleData<int8_t>(c[0], 0), (std::vector<int8_t>{2, 3, -4, 127}));
}

// ---- random.choice ----

TEST(RandomChoice, FrequenciesMatchPChiSquare) {
  Src a = Make<float>({{4}}, {{10.f, 20.f, 30.f, 40.f}});
  const std::vector<double> p{0.1, 0.2, 0.3, 0.4};
  auto out = RunOp({a}, OperatorDef("random.choice").Arg("p", p).Arg("shape", std::vector<int64_t>{20000}));
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(out[0].shape(0), (TensorShape{20000}));
  std::map<float, int> counts;
  for (float v : SampleData<float>(out[0], 0)) counts[v]++;
  ASSERT_EQ(counts.size(), 4u);
  double chi2 = 0;
  for (size_t k = 0; k < 4; ++k) {
    const double expected = 20000 * p[k];
    const double d = counts[10.f * static_cast<float>(k + 1)] - expected;
    chi2 += d * d / expected;
  }
  EXPECT_LT(chi2, 16.27);  // chi-square, 3 degrees of freedom, p = 0.001
}

TEST(RandomChoice, ScalarMeansRangeAndZeroProbabilityNeverDrawn) {
  Src n = Make<int32_t>({{}, {}}, {{5}, {3}});
  auto out = RunOp({n}, OperatorDef("random.choice").Arg("shape", std::vector<int64_t>{1000}));
  EXPECT_EQ(out[0].dtype(), DType::kInt32);
  for (int s = 0; s < 2; ++s) {
    std::map<int32_t, int> c;
    for (int32_t v : SampleData<int32_t>(out[0], s)) c[v]++;
    EXPECT_EQ(static_cast<int>(c.size()), s == 0 ? 5 : 3);
    EXPECT_EQ(c.begin()->first, 0);
    EXPECT_EQ(c.rbegin()->first, s == 0 ? 4 : 2);
  }
  Src three = Make<int64_t>({{}}, {{3}});
  auto z = RunOp({three}, OperatorDef("random.choice").Arg("p", std::vector<double>{0.5, 0.0, 0.5}).Arg("shape", std::vector<int64_t>{2000}));
  for (int64_t v : SampleData<int64_t>(z[0], 0)) EXPECT_NE(v, 1);
  // No shape: one value per sample; shape_like gives the shape.
  auto one = RunOp({n}, OperatorDef("random.choice"));
  EXPECT_EQ(one[0].shape(0), TensorShape{});
  Src like = Make<uint8_t>({{2, 3}, {2, 3}}, {std::vector<uint8_t>(6), std::vector<uint8_t>(6)});
  auto sl = RunOp({n, like}, OperatorDef("random.choice"));
  EXPECT_EQ(sl[0].shape(1), (TensorShape{2, 3}));
}

TEST(RandomChoice, SameResultsForOneAndTwoThreadsAndPerSampleP) {
  Src a = Make<int16_t>({{3}, {3}, {3}, {3}}, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {1, 1, 2}});
  Src p = Make<float>({{3}, {3}, {3}, {3}}, {{1, 0, 0}, {0, 1, 0}, {0.5f, 0, 0.5f}, {0.2f, 0.3f, 0.5f}});
  const OperatorDef op = OperatorDef("random.choice").Arg("shape", std::vector<int64_t>{64});
  auto one = RunOp({a}, op, {{"p", p}}, 0, 1);
  auto two = RunOp({a}, op, {{"p", p}}, 0, 2);
  EXPECT_EQ(AllBytes(one), AllBytes(two));
  EXPECT_EQ(SampleData<int16_t>(one[0], 0), std::vector<int16_t>(64, 1));
  EXPECT_EQ(SampleData<int16_t>(one[0], 1), std::vector<int16_t>(64, 5));
}

TEST(RandomChoice, ErrorsNameOperatorAndArgument) {
  Src a = Make<float>({{3}}, {{1, 2, 3}});
  ExpectError([&] { RunOp({a}, OperatorDef("random.choice").Arg("p", std::vector<double>{0.5, 0.5})); }, {"random.choice", "p", "2", "3"});
  ExpectError([&] { RunOp({a}, OperatorDef("random.choice").Arg("p", std::vector<double>{0.5, 0.2, 0.2})); }, {"random.choice", "p", "sum to 1"});
  Src f = Make<float>({{}}, {{3.f}});
  ExpectError([&] { RunOp({f}, OperatorDef("random.choice")); }, {"random.choice", "a", "integer"});
  Src m = Make<int32_t>({{2, 2}}, {{1, 2, 3, 4}});
  ExpectError([&] { RunOp({m}, OperatorDef("random.choice")); }, {"random.choice", "a", "1-D"});
}

}  // namespace
}  // namespace sluice
