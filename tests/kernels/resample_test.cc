// kernels::Resampler against its contract: DALI's quality -> lobes mapping and output length, DC
// gain 1, tones keep their frequency (against the analytic sine at the new rate), a tone above the
// output's Nyquist frequency is removed when downsampling, multi-channel = each channel alone,
// exact phases and the interpolated grid agree, integer outputs as ConvertSatNorm, zeros past the input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <tuple>
#include <utility>
#include <vector>

#include <sluice/error.h>

#include "kernels/audio/resample.h"

namespace sluice::kernels {
namespace {

std::vector<float> Tone(int64_t n, double rate, double freq, double amp = 0.5) {
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) x[size_t(t)] = float(amp * std::sin(2 * std::numbers::pi * freq * double(t) / rate));
  return x;
}

std::vector<float> ResampleAll(const std::vector<float>& in, int channels, double in_rate, double out_rate, int lobes = 16) {
  const int64_t frames = int64_t(in.size()) / channels;
  std::vector<float> out(size_t(ResampledLength(frames, in_rate, out_rate) * channels));
  Resampler(in_rate, out_rate, lobes).Resample(in.data(), frames, channels, out.data(), DType::kFloat32,
                                               int64_t(out.size()) / channels);
  return out;
}

TEST(Resample, QualityToLobesIsDalis) {
  EXPECT_EQ(ResamplingLobes(0), 3);
  EXPECT_EQ(ResamplingLobes(50), 16);
  EXPECT_EQ(ResamplingLobes(100), 64);
  EXPECT_EQ(ResamplingLobes(25), 5);  // 4.375 - 2.25 + 3 = 5.125
  EXPECT_EQ(ResamplingLobes(75), 36);  // 39.375 - 6.75 + 3 = 35.625
}

TEST(Resample, LengthIsCeilOfTheScaledLength) {
  EXPECT_EQ(ResampledLength(44100, 44100, 16000), 16000);
  EXPECT_EQ(ResampledLength(44101, 44100, 16000), 16001);  // 16000.36 -> up
  EXPECT_EQ(ResampledLength(10, 3, 2), 7);                 // 6.67 -> 7
  EXPECT_EQ(ResampledLength(9, 3, 2), 6);                  // exact
  EXPECT_EQ(ResampledLength(1000, 1, 1.5), 1500);
  EXPECT_EQ(ResampledLength(1000, 1, 0), 0);
  EXPECT_EQ(ResampledLength(0, 16000, 8000), 0);
  EXPECT_EQ(ResampledLength(1, 48000, 8000), 1);
}

TEST(Resample, DcGainIsOneAwayFromTheEnds) {
  for (auto [in_rate, out_rate] : std::vector<std::pair<double, double>>{
           {44100, 16000}, {16000, 44100}, {48000, 16000}, {8000, 16000}, {1, 1.2345}, {1.2345, 1}, {12347, 16000}}) {
    for (int lobes : {3, 16}) {
      const std::vector<float> in(4000, 0.25f);
      const auto out = ResampleAll(in, 1, in_rate, out_rate, lobes);
      const double s = std::max(1.0, in_rate / out_rate);
      const int64_t margin = int64_t(std::ceil((lobes * s + 2) * out_rate / in_rate));
      for (int64_t j = margin; j + margin < int64_t(out.size()); ++j)
        ASSERT_NEAR(out[size_t(j)], 0.25f, 2e-7) << in_rate << "->" << out_rate << " lobes " << lobes << " j=" << j;
    }
  }
}

// A tone well inside the band comes out as the same tone sampled at the new rate.
TEST(Resample, ToneKeepsItsFrequency) {
  for (auto [in_rate, out_rate, freq] : std::vector<std::tuple<double, double, double>>{
           {16000, 44100, 1000}, {44100, 16000, 1000}, {48000, 16000, 3000}, {22050, 16000, 440}, {8000, 12345.6, 700},
           {12347, 16000, 500}}) {  // the last two on the grid: inexact, and exact phases too many to tabulate
    const auto in = Tone(8000, in_rate, freq);
    const auto out = ResampleAll(in, 1, in_rate, out_rate, 16);
    const auto want = Tone(int64_t(out.size()), out_rate, freq);
    double err = 0;
    const size_t margin = size_t(out_rate / in_rate * 40 + 40);
    for (size_t j = margin; j + margin < out.size(); ++j) err = std::max(err, double(std::abs(out[j] - want[j])));
    EXPECT_LT(err, 2e-4) << in_rate << "->" << out_rate << " " << freq << " Hz";
  }
}

// Downsampling removes what the output cannot represent instead of folding it into the band.
TEST(Resample, DownsamplingRemovesToneAboveTheOutputNyquist) {
  const auto in = Tone(9600, 48000, 11000);  // above 8 kHz, the Nyquist frequency of 16 kHz
  const auto out = ResampleAll(in, 1, 48000, 16000, 16);
  double peak = 0;
  for (size_t j = 100; j + 100 < out.size(); ++j) peak = std::max(peak, double(std::abs(out[j])));
  EXPECT_LT(peak, 0.5 * 1e-3) << "an 11 kHz tone leaks into 16 kHz output (aliased to 5 kHz)";
}

TEST(Resample, ChannelsAreResampledIndependently) {
  const auto a = Tone(3001, 22050, 500), b = Tone(3001, 22050, 2000, 0.3);
  std::vector<float> stereo;
  for (size_t t = 0; t < a.size(); ++t) {
    stereo.push_back(a[t]);
    stereo.push_back(b[t]);
  }
  const auto ra = ResampleAll(a, 1, 22050, 16000), rb = ResampleAll(b, 1, 22050, 16000), rs = ResampleAll(stereo, 2, 22050, 16000);
  ASSERT_EQ(rs.size(), 2 * ra.size());
  for (size_t j = 0; j < ra.size(); ++j) {
    ASSERT_NEAR(rs[2 * j], ra[j], 1e-6) << j;  // mono uses the SIMD dot product, summed in another order
    ASSERT_NEAR(rs[2 * j + 1], rb[j], 1e-6) << j;
  }
}

TEST(Resample, ExactPhasesAndTheGridAgree) {
  // 16000 -> 44100 has 441 exact phases, one table row each; 12347 -> 16000 has 16000 phases and
  // 1 -> 1.5 is not an integer ratio: both interpolate on the grid.
  EXPECT_TRUE(Resampler(16000, 44100, 16).exact_phases());
  EXPECT_FALSE(Resampler(12347, 16000, 16).exact_phases());
  EXPECT_FALSE(Resampler(1, 1.5, 16).exact_phases());
  // 2 -> 3 exactly vs the same ratio as non-integer rates: the same positions and taps.
  const auto in = Tone(2000, 2, 0.3);
  const auto exact = ResampleAll(in, 1, 2, 3), inexact = ResampleAll(in, 1, 1, 1.5);
  ASSERT_EQ(exact.size(), inexact.size());
  for (size_t j = 0; j < exact.size(); ++j) ASSERT_NEAR(exact[j], inexact[j], 1e-6) << j;
}

// Downsampling by 666.7: too many taps for a grid of phases, each output computes its own; still
// DC gain 1. (By 1000 exactly there is one phase: one row of 32000 taps.)
TEST(Resample, HugeRatiosComputeTapsPerOutputOrAreRefused) {
  EXPECT_TRUE(Resampler(1000, 1, 16).exact_phases());
  const Resampler r(1000, 1.5, 16);
  EXPECT_TRUE(r.direct());
  EXPECT_EQ(r.taps(), 21334);
  const std::vector<float> in(100000, 0.75f);
  std::vector<float> out(150);
  r.Resample(in.data(), 100000, 1, out.data(), DType::kFloat32, 150);
  for (size_t j = 30; j < 120; ++j) ASSERT_NEAR(out[j], 0.75f, 1e-6) << j;
  EXPECT_THROW(Resampler(1e6, 1, 16), Error);  // 3.2e7 taps
}

TEST(Resample, SameRateIsTheIdentity) {
  const auto in = Tone(500, 16000, 1234);
  const auto out = ResampleAll(in, 1, 16000, 16000);
  EXPECT_EQ(out, in);
  // Upsampling by 2: every other output is an input sample, exactly.
  const auto up = ResampleAll(in, 1, 16000, 32000);
  for (size_t j = 0; j < in.size(); ++j) ASSERT_EQ(up[2 * j], in[j]) << j;
}

TEST(Resample, IntegerOutputsAreScaledRoundedAndSaturated) {
  const std::vector<float> in = {0.5f, 0.5f, 0.5f, 0.5f, 2.f, 2.f, 2.f, 2.f, -3.f, -3.f, -3.f, -3.f};
  std::vector<int16_t> out(in.size());
  Resampler(1, 1, 3).Resample(in.data(), int64_t(in.size()), 1, out.data(), DType::kInt16, int64_t(out.size()));
  EXPECT_EQ(out[1], 16384);   // 0.5 * 32767 = 16383.5, to even
  EXPECT_EQ(out[5], 32767);   // saturated
  EXPECT_EQ(out[10], -32768);
  std::vector<uint8_t> u8(4);
  const std::vector<float> half(4, 0.5f);
  Resampler(1, 1, 3).Resample(half.data(), 4, 1, u8.data(), DType::kUInt8, 4);
  EXPECT_EQ(u8[1], 128);  // 127.5 to even
}

TEST(Resample, OutputsPastTheInputAreZeroAndEmptyInputGivesZeros) {
  const std::vector<float> in(10, 1.f);
  std::vector<float> out(200, -1.f);
  Resampler(1, 2, 16).Resample(in.data(), 10, 1, out.data(), DType::kFloat32, 200);
  for (size_t j = 60; j < out.size(); ++j) ASSERT_EQ(out[j], 0.f) << j;  // 16 lobes past sample 9 is x = 25, j = 50
  Resampler(1, 2, 16).Resample(in.data(), 0, 1, out.data(), DType::kFloat32, 5);
  for (size_t j = 0; j < 5; ++j) EXPECT_EQ(out[j], 0.f);
}

TEST(Resample, BadParametersAreErrors) {
  EXPECT_THROW(Resampler(0, 16000, 16), Error);
  EXPECT_THROW(Resampler(16000, 0, 16), Error);
  EXPECT_THROW(Resampler(16000, std::nan(""), 16), Error);
  EXPECT_THROW(Resampler(16000, 8000, 0), Error);
  const std::vector<float> in(4, 0.f);
  std::vector<double> out(4);
  EXPECT_THROW(Resampler(1, 1, 3).Resample(in.data(), 4, 1, out.data(), DType::kFloat64, 4), Error);
}

}  // namespace
}  // namespace sluice::kernels
