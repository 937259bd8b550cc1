// kernels::PreemphasisFilter against the formula written out here in double (then rounded as the
// kernel's float arithmetic must round), for each border, integer saturation and the edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/audio/preemphasis.h"

namespace sluice::kernels {
namespace {

std::vector<float> Signal(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.f, 0.3f);
  std::vector<float> x(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) x[size_t(t)] = 0.5f * std::sin(0.05f * float(t) * (1.f + float(t) / float(n))) + noise(rng);
  return x;
}

// float32 arithmetic, each operation rounded once: what the kernel computes for float input.
float Expected(const std::vector<float>& x, int64_t t, float c, PreemphasisBorder b) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (t > 0) return x[size_t(t)] - float(c * x[size_t(t - 1)]);
  if (b == PreemphasisBorder::kZero) return x[0];
  const float border = b == PreemphasisBorder::kReflect && n > 1 ? x[1] : x[0];
  return x[0] - float(c * border);
}

TEST(Preemphasis, Float32MatchesTheFormulaForEveryBorder) {
  const auto x = Signal(1001, 3);
  for (auto border : {PreemphasisBorder::kZero, PreemphasisBorder::kClamp, PreemphasisBorder::kReflect}) {
    std::vector<float> out(x.size());
    PreemphasisFilter(x.data(), DType::kFloat32, out.data(), DType::kFloat32, int64_t(x.size()), 0.97f, border);
    for (size_t t = 0; t < x.size(); ++t)
      ASSERT_EQ(out[t], Expected(x, int64_t(t), 0.97f, border)) << "t=" << t << " border=" << int(border);
  }
  // The borders differ exactly in out[0].
  std::vector<float> zero(x.size()), clamp(x.size()), reflect(x.size());
  PreemphasisFilter(x.data(), DType::kFloat32, zero.data(), DType::kFloat32, int64_t(x.size()), 0.97f, PreemphasisBorder::kZero);
  PreemphasisFilter(x.data(), DType::kFloat32, clamp.data(), DType::kFloat32, int64_t(x.size()), 0.97f, PreemphasisBorder::kClamp);
  PreemphasisFilter(x.data(), DType::kFloat32, reflect.data(), DType::kFloat32, int64_t(x.size()), 0.97f, PreemphasisBorder::kReflect);
  EXPECT_EQ(zero[0], x[0]);
  EXPECT_FLOAT_EQ(clamp[0], 0.03f * x[0]);
  EXPECT_FLOAT_EQ(reflect[0], x[0] - 0.97f * x[1]);
}

TEST(Preemphasis, Int16InInt16OutRoundsToEvenAndSaturates) {
  const std::vector<int16_t> x = {1000, -32768, 32767, 3, 5, -7};
  std::vector<int16_t> out(x.size());
  PreemphasisFilter(x.data(), DType::kInt16, out.data(), DType::kInt16, int64_t(x.size()), 0.5f, PreemphasisBorder::kZero);
  // 1000; -32768 - 500 saturates; 32767 + 16384 saturates; 3 - 16383.5 -> -16380.5 -> -16380 (even);
  // 5 - 1.5 = 3.5 -> 4 (even); -7 - 2.5 = -9.5 -> -10 (even).
  EXPECT_EQ(out, (std::vector<int16_t>{1000, -32768, 32767, -16380, 4, -10}));
}

TEST(Preemphasis, Float64ComputesInDoubleAndFloat16InFloat) {
  const std::vector<double> x = {1.0 + 1e-12, 1.0, 0.25};
  std::vector<double> out(x.size());
  PreemphasisFilter(x.data(), DType::kFloat64, out.data(), DType::kFloat64, 3, 0.97f, PreemphasisBorder::kClamp);
  const double c = 0.97f;
  EXPECT_EQ(out[0], x[0] - c * x[0]);
  EXPECT_EQ(out[1], x[1] - c * x[0]);  // the 1e-12 survives: not computed in float
  EXPECT_EQ(out[2], x[2] - c * x[1]);

  const std::vector<float16> h = {float16(1.5f), float16(-2.0f)};
  std::vector<float> hf(2);
  PreemphasisFilter(h.data(), DType::kFloat16, hf.data(), DType::kFloat32, 2, 0.5f, PreemphasisBorder::kZero);
  EXPECT_EQ(hf, (std::vector<float>{1.5f, -2.75f}));
}

TEST(Preemphasis, ZeroCoefficientConvertsAndEdgeLengths) {
  const std::vector<float> x = {std::numeric_limits<float>::infinity(), 2.6f, -300.f};
  std::vector<uint8_t> u(3);
  // coeff 0: a conversion of every element (no 0 * inf = NaN), saturated to uint8.
  PreemphasisFilter(x.data(), DType::kFloat32, u.data(), DType::kUInt8, 3, 0.f, PreemphasisBorder::kClamp);
  EXPECT_EQ(u, (std::vector<uint8_t>{255, 3, 0}));
  // One element, reflect: reflects onto itself (in[0]); no read past the end.
  const float one = 2.f;
  float o = 0.f;
  PreemphasisFilter(&one, DType::kFloat32, &o, DType::kFloat32, 1, 0.5f, PreemphasisBorder::kReflect);
  EXPECT_EQ(o, 1.f);
  // Empty: nothing written.
  PreemphasisFilter(nullptr, DType::kFloat32, nullptr, DType::kFloat32, 0, 0.5f, PreemphasisBorder::kReflect);
}

}  // namespace
}  // namespace sluice::kernels
