#include <gtest/gtest.h>
#include <sluice/dtype.h>
#include <sluice/error.h>
#include <sluice/tensor_shape.h>

#include <cmath>
#include <limits>

namespace sluice {
namespace {

TEST(DType, SizesAndNames) {
  EXPECT_EQ(SizeOf(DType::kUInt8), 1u);
  EXPECT_EQ(SizeOf(DType::kFloat16), 2u);
  EXPECT_EQ(SizeOf(DType::kInt32), 4u);
  EXPECT_EQ(SizeOf(DType::kFloat64), 8u);
  EXPECT_EQ(SizeOf(DType::kBool), 1u);
  for (int i = 0; i < kNumDTypes; ++i) {
    DType t = static_cast<DType>(i);
    EXPECT_EQ(ParseDType(ToString(t)), t) << ToString(t);
  }
  EXPECT_EQ(ParseDType("FLOAT"), DType::kFloat32);
  EXPECT_EQ(ParseDType("types.FLOAT16"), DType::kFloat16);
  EXPECT_EQ(ParseDType("double"), DType::kFloat64);
  EXPECT_FALSE(ParseDType("complex64").has_value());
}

TEST(Float16, RoundTripsExactValuesAndRoundsToNearestEven) {
  for (float f : {0.0f, -0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f /*min normal*/, 5.960464477539063e-08f /*min subnormal*/}) {
    EXPECT_EQ(static_cast<float>(float16(f)), f) << f;
  }
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(static_cast<float>(float16(1.0f + std::ldexp(1.0f, -11))), 1.0f);
  // Slightly above halfway rounds up.
  EXPECT_EQ(static_cast<float>(float16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20))), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_TRUE(std::isinf(static_cast<float>(float16(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(float16(std::numeric_limits<float>::quiet_NaN()))));
  // Every half value converts to float and back unchanged.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float16 h;
    h.bits = static_cast<uint16_t>(b);
    float f = static_cast<float>(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(float16(f).bits, h.bits) << b;
  }
}

TEST(TensorShape, Basics) {
  TensorShape s{224, 224, 3};
  EXPECT_EQ(s.ndim(), 3);
  EXPECT_EQ(s.num_elements(), 224 * 224 * 3);
  EXPECT_EQ(s.ToString(), "(224, 224, 3)");
  EXPECT_EQ(TensorShape{}.num_elements(), 1);
  EXPECT_EQ(TensorShape({5}).ToString(), "(5,)");
  EXPECT_EQ(TensorShape(std::vector<int64_t>{2, 3}), (TensorShape{2, 3}));
  EXPECT_NE((TensorShape{2, 3}), (TensorShape{2, 3, 1}));
  EXPECT_EQ((TensorShape{4, 5}).to_vector(), (std::vector<int64_t>{4, 5}));
  // Shapes are stored inline; more dimensions than that are a clear error.
  EXPECT_NO_THROW(TensorShape(std::vector<int64_t>(TensorShape::kMaxDims, 1)));
  EXPECT_THROW(TensorShape(std::vector<int64_t>(TensorShape::kMaxDims + 1, 1)), Error);
}

TEST(VisitDType, DispatchesToTheRightType) {
  EXPECT_EQ(VisitDType(DType::kInt16, [](auto t) { return sizeof(t); }), 2u);
  EXPECT_EQ(VisitDType(DType::kFloat64, [](auto t) { return sizeof(t); }), 8u);
}

}  // namespace
}  // namespace sluice
