// arithmetic.expression's parser, type promotion and evaluation (kernels/arithmetic/expression.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/arithmetic/expression.h"

namespace sluice {
namespace {

namespace ka = kernels::arith;

TEST(ArithmeticExpression, ParsesAndPrintsBack) {
  const auto e = ka::ParseExpression("add(&0,mul(&1,$2:int))");
  EXPECT_EQ(e.op, ka::Op::kAdd);
  ASSERT_EQ(e.args.size(), 2u);
  EXPECT_EQ(e.args[0].op, ka::Op::kInput);
  EXPECT_EQ(e.args[1].args[1].const_kind, ka::ConstKind::kWeakInt);
  EXPECT_EQ(ka::NumInputs(e), 2);
  EXPECT_EQ(ka::ToString(e), "add(&0,mul(&1,$2:int))");
  const auto c = ka::ParseExpression("clamp(&0,$-1.5e3:float,$7:uint8)");
  EXPECT_DOUBLE_EQ(c.args[1].fvalue, -1500.0);
  EXPECT_EQ(c.args[2].const_type, DType::kUInt8);
}

TEST(ArithmeticExpression, ParseErrorsSayWhereAndWhy) {
  auto msg = [](const std::string& s) {
    try {
      ka::ParseExpression(s);
    } catch (const ka::ExpressionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(msg("").find("empty"), std::string::npos);
  EXPECT_NE(msg("frob(&0)").find("unknown operation 'frob'"), std::string::npos);
  EXPECT_NE(msg("add(&0)").find("takes 2 operand(s), got 1"), std::string::npos);
  EXPECT_NE(msg("add(&0,&1").find("expected ',' or ')'"), std::string::npos);
  EXPECT_NE(msg("add(&0,$3)").find("needs a kind"), std::string::npos);
  EXPECT_NE(msg("add(&0,$3:quux)").find("unknown constant type 'quux'"), std::string::npos);
  EXPECT_NE(msg("add(&0,$x:int)").find("bad constant value 'x'"), std::string::npos);
  EXPECT_NE(msg("neg(&0))").find("after the end"), std::string::npos);
  EXPECT_NE(msg("&").find("input index"), std::string::npos);
}

TEST(ArithmeticExpression, DaliPromotionTable) {
  using D = DType;
  EXPECT_EQ(ka::Promote(D::kInt32, D::kInt32), D::kInt32);
  EXPECT_EQ(ka::Promote(D::kFloat32, D::kInt64), D::kFloat32);
  EXPECT_EQ(ka::Promote(D::kFloat16, D::kFloat64), D::kFloat64);
  EXPECT_EQ(ka::Promote(D::kInt16, D::kInt64), D::kInt64);
  EXPECT_EQ(ka::Promote(D::kUInt8, D::kUInt16), D::kUInt16);
  EXPECT_EQ(ka::Promote(D::kInt8, D::kUInt8), D::kInt16);
  EXPECT_EQ(ka::Promote(D::kInt16, D::kUInt16), D::kInt32);
  EXPECT_EQ(ka::Promote(D::kInt32, D::kUInt8), D::kInt32);
  EXPECT_EQ(ka::Promote(D::kBool, D::kUInt8), D::kUInt8);
  EXPECT_EQ(ka::Program(ka::ParseExpression("div(&0,&1)"), {D::kInt32, D::kUInt8}).output_type(), D::kFloat32);
  EXPECT_EQ(ka::Program(ka::ParseExpression("lt(&0,&1)"), {D::kInt32, D::kFloat64}).output_type(), D::kBool);
  EXPECT_EQ(ka::Program(ka::ParseExpression("mul(&0,$2:int)"), {D::kUInt8}).output_type(), D::kUInt8);
  EXPECT_EQ(ka::Program(ka::ParseExpression("mul(&0,$2.5:float)"), {D::kUInt8}).output_type(), D::kFloat32);
  EXPECT_EQ(ka::Program(ka::ParseExpression("mul(&0,$2.5:float)"), {D::kFloat16}).output_type(), D::kFloat16);
  EXPECT_EQ(ka::Program(ka::ParseExpression("sqrt(&0)"), {D::kInt16}).output_type(), D::kFloat32);
  EXPECT_THROW(ka::Program(ka::ParseExpression("bitand(&0,&1)"), {D::kInt32, D::kFloat32}), ka::ExpressionError);
  EXPECT_THROW(ka::Program(ka::ParseExpression("add(&0,&3)"), {D::kInt32}), ka::ExpressionError);
}

TEST(ArithmeticExpression, EvaluatesInOnePassWithScalarsAndWrapping) {
  // (a + b * 2 - c) over uint8 a, int16 b, per-sample scalar float c; longer than one chunk.
  const int64_t n = 1000;
  std::vector<uint8_t> a(n);
  std::vector<int16_t> b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<uint8_t>(i % 256);
    b[i] = static_cast<int16_t>(i - 500);
  }
  const float c = 0.5f;
  ka::Program p(ka::ParseExpression("sub(add(&0,mul(&1,$2:int)),&2)"), {DType::kUInt8, DType::kInt16, DType::kFloat32});
  ASSERT_EQ(p.output_type(), DType::kFloat32);
  std::vector<float> out(n);
  p.Evaluate({a.data(), b.data(), &c}, {false, false, true}, out.data(), n);
  for (int64_t i = 0; i < n; ++i)
    ASSERT_FLOAT_EQ(out[i], static_cast<float>(static_cast<int16_t>(a[i] + b[i] * 2)) - 0.5f) << i;

  // uint8 arithmetic wraps as NumPy's; integer division and modulo are C++'s, as DALI 2.4's:
  // the quotient truncated toward zero, the remainder with the dividend's sign.
  std::vector<uint8_t> x = {250, 10};
  std::vector<uint8_t> wrapped(2);
  ka::Program(ka::ParseExpression("add(&0,$10:int)"), {DType::kUInt8}).Evaluate({x.data()}, {false}, wrapped.data(), 2);
  EXPECT_EQ(wrapped[0], 4);
  EXPECT_EQ(wrapped[1], 20);
  std::vector<int32_t> s = {-7, 7}, q(2), m(2);
  ka::Program(ka::ParseExpression("floordiv(&0,$2:int)"), {DType::kInt32}).Evaluate({s.data()}, {false}, q.data(), 2);
  ka::Program(ka::ParseExpression("mod(&0,$-3:int)"), {DType::kInt32}).Evaluate({s.data()}, {false}, m.data(), 2);
  EXPECT_EQ(q, (std::vector<int32_t>{-3, 3}));
  EXPECT_EQ(m, (std::vector<int32_t>{-1, 1}));
  // Floating point: `//` is the true quotient and `%` fmod (DALI 2.4: 7.0 // 2.0 == 3.5).
  std::vector<float> fx = {7.0f, -7.0f}, fq(2), fm(2);
  ka::Program(ka::ParseExpression("floordiv(&0,$2.0:float)"), {DType::kFloat32}).Evaluate({fx.data()}, {false}, fq.data(), 2);
  ka::Program(ka::ParseExpression("mod(&0,$2.0:float)"), {DType::kFloat32}).Evaluate({fx.data()}, {false}, fm.data(), 2);
  EXPECT_EQ(fq, (std::vector<float>{3.5f, -3.5f}));
  EXPECT_EQ(fm, (std::vector<float>{1.0f, -1.0f}));
  // Integer division by zero is 0, not a crash.
  std::vector<int32_t> z(2);
  ka::Program(ka::ParseExpression("floordiv(&0,$0:int)"), {DType::kInt32}).Evaluate({s.data()}, {false}, z.data(), 2);
  EXPECT_EQ(z, (std::vector<int32_t>{0, 0}));
}

// An expression of one uint8/int8 tensor and scalars is evaluated through a 256-entry table when
// the tensor is large enough: the bytes must equal the element-by-element evaluation's (tensors
// under 1024 elements take that path), for every output type, NaNs and division by zero included.
TEST(ArithmeticExpression, ByteInputTableGivesTheElementwiseResultsBitForBit) {
  struct Case {
    const char* expr;
    DType tensor_type;
    std::vector<DType> types;  // of &0 (the tensor) and the scalars
  };
  const Case cases[] = {
      {"add(mul(lt(&0,&1),&0),mul(bitxor(lt(&0,&1),$1:bool),sub($255:int,&0)))", DType::kUInt8, {DType::kUInt8, DType::kUInt8}},
      {"bitand(&0,&1)", DType::kUInt8, {DType::kUInt8, DType::kUInt8}},
      {"mul(&0,$0.7:float)", DType::kUInt8, {DType::kUInt8}},
      {"add(mul(&0,&1),$0.5:float16)", DType::kUInt8, {DType::kUInt8, DType::kFloat32}},
      {"floordiv(&0,sub(&1,$3:int))", DType::kUInt8, {DType::kUInt8, DType::kInt32}},
      {"sqrt(&0)", DType::kInt8, {DType::kInt8}},
      {"gt(&0,&1)", DType::kInt8, {DType::kInt8, DType::kInt8}},
      {"mul(&0,$3:int64)", DType::kInt8, {DType::kInt8}},
  };
  const int64_t n = 5000;
  std::vector<uint8_t> tensor(n);
  for (int64_t k = 0; k < n; ++k) tensor[static_cast<size_t>(k)] = static_cast<uint8_t>((k * 37 + k / 7) & 255);
  const uint8_t u8_scalar = 128;
  const float f32_scalar = 1.25f;
  const int32_t i32_scalar = 3;  // floordiv by (3 - 3) = 0 for every element
  for (const Case& c : cases) {
    ka::Program p(ka::ParseExpression(c.expr), c.types);
    std::vector<const void*> in = {tensor.data()};
    std::vector<bool> scalar = {false};
    for (size_t i = 1; i < c.types.size(); ++i) {
      in.push_back(c.types[i] == DType::kFloat32 ? static_cast<const void*>(&f32_scalar)
                   : c.types[i] == DType::kInt32 ? static_cast<const void*>(&i32_scalar)
                                                 : static_cast<const void*>(&u8_scalar));
      scalar.push_back(true);
    }
    const size_t es = SizeOf(p.output_type());
    std::vector<unsigned char> table(static_cast<size_t>(n) * es), elementwise(static_cast<size_t>(n) * es);
    p.Evaluate(in, scalar, table.data(), n);
    for (int64_t off = 0; off < n; off += 1000) {  // pieces under the table's threshold
      std::vector<const void*> piece = in;
      piece[0] = tensor.data() + off;
      p.Evaluate(piece, scalar, elementwise.data() + static_cast<size_t>(off) * es, std::min<int64_t>(1000, n - off));
    }
    EXPECT_EQ(table, elementwise) << c.expr;
  }
}

TEST(ArithmeticExpression, MathFunctionsAndComparisons) {
  std::vector<double> x = {0.25, 4.0};
  std::vector<double> out(2);
  ka::Program(ka::ParseExpression("add(sqrt(&0),atan2(&0,$1:float))"), {DType::kFloat64}).Evaluate({x.data()}, {false}, out.data(), 2);
  EXPECT_DOUBLE_EQ(out[0], std::sqrt(0.25) + std::atan2(0.25, 1.0));
  EXPECT_DOUBLE_EQ(out[1], 2.0 + std::atan2(4.0, 1.0));
  bool cmp[2];
  ka::Program(ka::ParseExpression("bitand(gt(&0,$1:int),le(&0,$4:int))"), {DType::kFloat64}).Evaluate({x.data()}, {false}, cmp, 2);
  EXPECT_FALSE(cmp[0]);
  EXPECT_TRUE(cmp[1]);
  std::vector<int32_t> v = {-5, 3, 12}, cl(3);
  ka::Program(ka::ParseExpression("clamp(abs(&0),$0:int,$10:int)"), {DType::kInt32}).Evaluate({v.data()}, {false}, cl.data(), 3);
  EXPECT_EQ(cl, (std::vector<int32_t>{5, 3, 10}));
}

}  // namespace
}  // namespace sluice
