// The spectral audio kernels against their definitions, computed here in double: the real FFT and
// its spectra against a naive DFT, the Hann window, the STFT against framing + DFT for each
// padding and layout, the mel filter bank's matrix properties, the DCTs against their formulas,
// to_decibels, and the moving mean square and nonsilent region against a direct evaluation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "kernels/audio/dct.h"
#include "kernels/audio/mel_filter_bank.h"
#include "kernels/audio/nonsilent_region.h"
#include "kernels/audio/power_spectrum.h"
#include "kernels/audio/real_fft.h"
#include "kernels/audio/spectrogram.h"
#include "kernels/audio/to_decibels.h"
#include "kernels/audio/window_function.h"

namespace sluice::kernels {
namespace {

constexpr double kPi = std::numbers::pi;

std::vector<float> Noise(int64_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) v = d(rng);
  return x;
}

// X[k] = sum_t x[t] exp(-2 pi i k t / n) in double, k in [0, n/2].
std::vector<std::complex<double>> NaiveDft(const std::vector<double>& x) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<std::complex<double>> X(static_cast<size_t>(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) {
    std::complex<double> s = 0;
    for (int64_t t = 0; t < n; ++t) s += x[size_t(t)] * std::polar(1.0, -2.0 * kPi * double(k * t % n) / double(n));
    X[size_t(k)] = s;
  }
  return X;
}

std::vector<double> ToDouble(const float* x, int64_t n) { return std::vector<double>(x, x + n); }

double SumAbs(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += std::abs(v);
  return s;
}

TEST(RealFft, MatchesNaiveDftForEvenAndOddSizes) {
  for (int64_t n : {1, 2, 3, 5, 8, 17, 64, 100, 255, 400, 512, 1023}) {
    const auto x = Noise(n, static_cast<uint32_t>(n));
    RealFft fft(n);
    ASSERT_EQ(fft.num_bins(), n / 2 + 1);
    std::vector<std::complex<float>> X(static_cast<size_t>(fft.num_bins()));
    fft.Forward(x.data(), X.data());
    const auto xd = ToDouble(x.data(), n);
    const auto ref = NaiveDft(xd);
    // |X[k]| <= sum |x|: float32 rounding over log2(n) butterfly stages stays far below 1e-6 of it.
    const double tol = 1e-6 * SumAbs(xd);
    for (size_t k = 0; k < ref.size(); ++k) {
      EXPECT_NEAR(X[k].real(), ref[k].real(), tol) << "n=" << n << " k=" << k;
      EXPECT_NEAR(X[k].imag(), ref[k].imag(), tol) << "n=" << n << " k=" << k;
    }
  }
}

TEST(RealFft, SpectrumIsMagnitudeOrPowerWithStride) {
  for (int64_t n : {6, 9}) {
    const auto x = Noise(n, 11);
    RealFft fft(n);
    const auto ref = NaiveDft(ToDouble(x.data(), n));
    std::vector<float> mag(size_t(fft.num_bins() * 3), -1.0f), pow(size_t(fft.num_bins()));
    fft.Spectrum(x.data(), 1, mag.data(), 3);
    fft.Spectrum(x.data(), 2, pow.data(), 1);
    for (size_t k = 0; k < ref.size(); ++k) {
      EXPECT_NEAR(mag[3 * k], std::abs(ref[k]), 1e-5) << k;
      EXPECT_EQ(mag[3 * k + 1], -1.0f) << "the stride leaves other elements alone";
      EXPECT_NEAR(pow[k], std::norm(ref[k]), 1e-4) << k;
    }
  }
}

TEST(RealFftCache, KeepsOnePlanPerSize) {
  RealFftCache cache;
  RealFft& a = cache.Get(512);
  RealFft& b = cache.Get(400);
  EXPECT_EQ(&cache.Get(512), &a);
  EXPECT_EQ(&cache.Get(400), &b);
  EXPECT_NE(&a, &b);
  EXPECT_EQ(b.size(), 400);
}

TEST(HannWindow, IsDalisMidpointSampledHann) {
  for (int64_t n : {1, 4, 7, 400}) {
    std::vector<float> w(static_cast<size_t>(n));
    HannWindow(w.data(), n);
    double sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      EXPECT_FLOAT_EQ(w[size_t(t)], float(0.5 * (1 - std::cos(2 * kPi * (t + 0.5) / double(n)))));
      EXPECT_EQ(w[size_t(t)], w[size_t(n - 1 - t)]) << "symmetric";
      sum += w[size_t(t)];
    }
    if (n > 1) EXPECT_NEAR(sum, n / 2.0, 1e-5 * n);
  }
}

TEST(ReflectIndex101, MirrorsWithoutRepeatingTheEdge) {
  // n = 4: ... 2 1 | 0 1 2 3 | 2 1 0 1 ...
  const int64_t expect[] = {2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0, 1};
  for (int64_t i = -4; i < 8; ++i) EXPECT_EQ(ReflectIndex101(i, 4), expect[i + 4]) << i;
  EXPECT_EQ(ReflectIndex101(-3, 1), 0);
  EXPECT_EQ(ReflectIndex101(5, 1), 0);
}

// The STFT written out: DALI's frame placement, then the naive DFT of each frame.
std::vector<double> NaiveSpectrogram(const std::vector<float>& x, const std::vector<float>& win, const StftArgs& a) {
  const auto n = static_cast<int64_t>(x.size());
  const int64_t windows = StftNumWindows(n, a), bins = a.nfft / 2 + 1;
  const int64_t center = a.padding == StftPadding::kNone ? 0 : a.window_length / 2;
  std::vector<double> out(size_t(windows * bins));
  for (int64_t w = 0; w < windows; ++w) {
    std::vector<double> frame(size_t(a.nfft), 0.0);
    for (int64_t t = 0; t < a.window_length; ++t) {
      int64_t i = w * a.window_step - center + t;
      if (a.padding == StftPadding::kReflect) {
        while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;  // numpy's "reflect"
      }
      const double v = i >= 0 && i < n ? double(win[size_t(t)]) * x[size_t(i)] : 0.0;
      frame[size_t((a.nfft - a.window_length) / 2 + t)] = v;
    }
    const auto X = NaiveDft(frame);
    for (int64_t k = 0; k < bins; ++k) {
      const double m = std::abs(X[size_t(k)]);
      out[size_t(a.time_major ? w * bins + k : k * windows + w)] = a.power == 2 ? m * m : m;
    }
  }
  return out;
}

void ExpectSpectrogramMatches(int64_t length, StftArgs a, uint32_t seed) {
  const auto x = Noise(length, seed);
  std::vector<float> win(size_t(a.window_length));
  HannWindow(win.data(), a.window_length);
  const int64_t windows = StftNumWindows(length, a);
  ASSERT_GT(windows, 0);
  std::vector<float> out(size_t(windows * (a.nfft / 2 + 1)));
  RealFftCache cache;
  Spectrogram(x.data(), length, win.data(), a, cache.Get(a.nfft), out.data());
  const auto ref = NaiveSpectrogram(x, win, a);
  double peak = 0;
  for (double v : ref) peak = std::max(peak, v);
  for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(out[i], ref[i], 2e-6 * peak) << "element " << i;
}

TEST(Spectrogram, MatchesFramingAndDftForEveryPaddingLayoutAndPower) {
  for (auto padding : {StftPadding::kReflect, StftPadding::kZero, StftPadding::kNone})
    for (bool time_major : {false, true})
      for (int power : {1, 2}) {
        SCOPED_TRACE(testing::Message() << "padding " << int(padding) << " tf " << time_major << " power " << power);
        ExpectSpectrogramMatches(1000, {64, 64, 16, padding, power, time_major}, 1);
        ExpectSpectrogramMatches(997, {128, 100, 33, padding, power, time_major}, 2);  // window < nfft: centered
        ExpectSpectrogramMatches(301, {63, 51, 25, padding, power, time_major}, 3);    // odd nfft
      }
}

TEST(Spectrogram, ShortSignalsReflectRepeatedlyOrOverrun) {
  // A 5-sample signal under 32-sample windows: reflection wraps several times.
  ExpectSpectrogramMatches(5, {32, 32, 4, StftPadding::kReflect, 2, false}, 4);
  // Not centered, shorter than a window: DALI's count gives one window, zero past the end.
  StftArgs a{16, 16, 8, StftPadding::kNone, 2, false};
  EXPECT_EQ(StftNumWindows(10, a), 1);
  EXPECT_EQ(StftNumWindows(0, a), -1);  // (0 - 16) / 8 + 1: too short
  ExpectSpectrogramMatches(10, a, 5);
}

TEST(Spectrogram, ResultDoesNotDependOnWhatTheTransformDidBefore) {
  // The windows go lane_count() at a time through one in-place transform: a short signal after a
  // long one (a last group with unused lanes, a window shorter than nfft after a full one) must
  // equal the same signal through a fresh RealFft, bit for bit.
  const auto long_signal = Noise(4000, 11), short_signal = Noise(70, 12);
  std::vector<float> hann64(64), hann40(40);
  HannWindow(hann64.data(), 64);
  HannWindow(hann40.data(), 40);
  const StftArgs full{64, 64, 16, StftPadding::kReflect, 2, false}, narrow{64, 40, 32, StftPadding::kZero, 1, true};
  const int64_t bins = 33, windows = StftNumWindows(70, narrow);
  ASSERT_EQ(windows % RealFft::lane_count() == 0, false) << "the short signal must leave lanes unused";
  RealFft reused(64), fresh(64);
  std::vector<float> scratch(size_t(StftNumWindows(4000, full) * bins)), a(size_t(windows * bins)), b(a.size());
  Spectrogram(long_signal.data(), 4000, hann64.data(), full, reused, scratch.data());
  Spectrogram(short_signal.data(), 70, hann40.data(), narrow, reused, a.data());
  Spectrogram(short_signal.data(), 70, hann40.data(), narrow, fresh, b.data());
  EXPECT_EQ(a, b);
  // And each window equals the one-frame path (Spectrum) on the same frame.
  for (int64_t w = 0; w < windows; ++w) {
    std::vector<float> frame(64, 0.0f), one(static_cast<size_t>(bins));
    for (int64_t t = 0; t < 40; ++t) {
      const int64_t i = w * 32 - 20 + t;
      frame[size_t(12 + t)] = i >= 0 && i < 70 ? hann40[size_t(t)] * short_signal[size_t(i)] : 0.0f;
    }
    fresh.Spectrum(frame.data(), 1, one.data(), 1);
    for (int64_t k = 0; k < bins; ++k) ASSERT_EQ(a[size_t(w * bins + k)], one[size_t(k)]) << "window " << w << " bin " << k;
  }
}

TEST(Spectrogram, NumberOfWindowsIsDalis) {
  StftArgs centered{512, 400, 160, StftPadding::kReflect, 2, false};
  EXPECT_EQ(StftNumWindows(160000, centered), 1001);
  EXPECT_EQ(StftNumWindows(159, centered), 1);
  StftArgs inside = centered;
  inside.padding = StftPadding::kNone;
  EXPECT_EQ(StftNumWindows(160000, inside), (160000 - 400) / 160 + 1);
  EXPECT_EQ(StftNumWindows(400, inside), 1);
}

TEST(PowerSpectrum, TransformsTheMiddleAxisAndCentersShortSignals) {
  // (outer 2, n 6, inner 3), nfft 8: each column x[o, :, j] is padded to 8 samples.
  const int64_t outer = 2, n = 6, inner = 3, nfft = 8;
  const auto x = Noise(outer * n * inner, 9);
  RealFft fft(nfft);
  std::vector<float> out(size_t(outer * (nfft / 2 + 1) * inner));
  PowerSpectrum(x.data(), outer, n, inner, 2, fft, out.data());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j) {
      std::vector<double> frame(nfft, 0.0);
      for (int64_t t = 0; t < n; ++t) frame[size_t(1 + t)] = x[size_t((o * n + t) * inner + j)];
      const auto X = NaiveDft(frame);
      for (int64_t k = 0; k <= nfft / 2; ++k)
        EXPECT_NEAR(out[size_t((o * (nfft / 2 + 1) + k) * inner + j)], std::norm(X[size_t(k)]), 1e-4);
    }
}

TEST(MelScale, FormulasAndInverses) {
  EXPECT_NEAR(HzToMel(1000, MelFormula::kSlaney), 15.0, 1e-12);
  EXPECT_NEAR(HzToMel(500, MelFormula::kSlaney), 7.5, 1e-12);
  EXPECT_NEAR(HzToMel(6400, MelFormula::kSlaney), 15.0 + 27.0, 1e-9);  // 27 mel per factor 6.4 above 1 kHz
  EXPECT_NEAR(HzToMel(700, MelFormula::kHtk), 2595.0 * std::log10(2.0), 1e-9);
  for (auto f : {MelFormula::kSlaney, MelFormula::kHtk})
    for (double hz : {0.0, 123.0, 999.0, 1000.0, 4321.0, 22050.0}) EXPECT_NEAR(MelToHz(HzToMel(hz, f), f), hz, 1e-9 * (1 + hz));
}

TEST(MelFilterBank, TrianglesPartitionUnityAndNormalizeToUnitArea) {
  MelFilterBankArgs a;
  a.nfilter = 40;
  a.nfft = 1024;
  a.sample_rate = 16000;
  a.freq_low = 50;
  a.freq_high = 7000;
  a.normalize = false;
  const MelFilterBank peak(a);
  a.normalize = true;
  const MelFilterBank area(a);
  ASSERT_EQ(peak.nfilter(), 40);
  ASSERT_EQ(peak.num_bins(), 513);
  const double hz = 16000.0 / 1024;
  std::vector<double> p(42);
  const double m0 = HzToMel(50, a.formula), step = (HzToMel(7000, a.formula) - m0) / 41;
  for (int i = 0; i < 42; ++i) p[size_t(i)] = MelToHz(m0 + i * step, a.formula);
  for (int64_t k = 0; k < 513; ++k) {
    double sum = 0;
    for (int64_t m = 0; m < 40; ++m) {
      EXPECT_GE(peak.Weight(m, k), 0.0f);
      EXPECT_LE(peak.Weight(m, k), 1.0f);
      sum += peak.Weight(m, k);
    }
    const double f = k * hz;
    if (f < 50 || f > 7000) EXPECT_EQ(sum, 0.0) << "outside [freq_low, freq_high]: bin " << k;
    if (f >= p[1] && f <= p[40]) EXPECT_NEAR(sum, 1.0, 1e-6) << "overlapping triangles sum to 1: bin " << k;
  }
  for (int64_t m = 0; m < 40; ++m) {
    // Each band is one run of bins inside its triangle, the next one starting no earlier.
    EXPECT_GE(double(peak.first_bin(m)) * hz, p[size_t(m)]);
    EXPECT_LE(double(peak.first_bin(m) + peak.band_size(m) - 1) * hz, p[size_t(m + 2)]);
    if (m > 0) EXPECT_GE(peak.first_bin(m), peak.first_bin(m - 1));
    // Slaney normalization: the weights are the peak ones times 2 / (right - left), so the
    // triangle's area (integral over Hz) is 1.
    for (int64_t k = 0; k < 513; ++k)
      EXPECT_NEAR(area.Weight(m, k), peak.Weight(m, k) * 2.0 / (p[size_t(m + 2)] - p[size_t(m)]),
                  1e-6 * area.Weight(m, k) + 1e-12);
  }
}

TEST(MelFilterBank, ApplyIsTheBandMatrixProductInEitherLayout) {
  MelFilterBankArgs a;
  a.nfilter = 20;
  a.nfft = 256;
  a.sample_rate = 8000;
  a.freq_high = 4000;
  a.formula = MelFormula::kHtk;
  const MelFilterBank fb(a);
  const int64_t bins = 129, frames = 37;
  auto spec = Noise(bins * frames, 3);
  for (auto& v : spec) v = v * v;  // a power spectrum, "ft"
  std::vector<float> spec_tf(spec.size());
  for (int64_t k = 0; k < bins; ++k)
    for (int64_t t = 0; t < frames; ++t) spec_tf[size_t(t * bins + k)] = spec[size_t(k * frames + t)];
  std::vector<float> ft(size_t(20 * frames)), tf(size_t(20 * frames));
  fb.Apply(spec.data(), 1, frames, ft.data());
  fb.Apply(spec_tf.data(), frames, 1, tf.data());
  for (int64_t m = 0; m < 20; ++m)
    for (int64_t t = 0; t < frames; ++t) {
      double ref = 0;
      for (int64_t k = 0; k < bins; ++k) ref += double(fb.Weight(m, k)) * spec[size_t(k * frames + t)];
      EXPECT_NEAR(ft[size_t(m * frames + t)], ref, 1e-5 * (1 + ref));
      EXPECT_EQ(ft[size_t(m * frames + t)], tf[size_t(t * 20 + m)]) << "the same sums in either layout";
    }
}

// X[k] of the DCT of `type` by its formula, in double.
double DctDefinition(const std::vector<double>& x, int type, bool ortho, int64_t k) {
  const auto n = static_cast<int64_t>(x.size());
  const double N = double(n);
  double s = 0;
  for (int64_t t = 0; t < n; ++t) {
    double c = 0;
    switch (type) {
      case 1: c = (t == 0 || t == n - 1 ? 0.5 : 1.0) * std::cos(kPi * k * t / (N - 1)); break;
      case 2: c = std::cos(kPi * (t + 0.5) * k / N) * (ortho ? (k == 0 ? std::sqrt(1 / N) : std::sqrt(2 / N)) : 1); break;
      case 3: c = t == 0 ? (ortho ? std::sqrt(1 / N) : 0.5) : std::cos(kPi * t * (k + 0.5) / N) * (ortho ? std::sqrt(2 / N) : 1); break;
      default: c = std::cos(kPi * (t + 0.5) * (k + 0.5) / N) * (ortho ? std::sqrt(2 / N) : 1); break;
    }
    s += c * x[size_t(t)];
  }
  return s;
}

TEST(Dct, EveryTypeMatchesItsDefinitionAlongAnyAxis) {
  const int64_t n = 24, ndct = 13, outer = 3, inner = 5;
  const auto x = Noise(outer * n * inner, 21);
  for (int type = 1; type <= 4; ++type)
    for (bool ortho : {false, true}) {
      if (type == 1 && ortho) continue;
      const DctTable table(type, ortho, n, ndct);
      for (int64_t in_inner : {int64_t{1}, inner}) {
        std::vector<float> y(size_t(outer * ndct * in_inner));
        Dct(x.data(), outer, in_inner, table, nullptr, y.data());
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < in_inner; ++j) {
            std::vector<double> col(static_cast<size_t>(n));
            for (int64_t t = 0; t < n; ++t) col[size_t(t)] = x[size_t((o * n + t) * in_inner + j)];
            for (int64_t k = 0; k < ndct; ++k)
              ASSERT_NEAR(y[size_t((o * ndct + k) * in_inner + j)], DctDefinition(col, type, ortho, k), 2e-5 * SumAbs(col))
                  << "type " << type << " ortho " << ortho << " k " << k;
          }
      }
    }
}

TEST(Dct, OrthoTypeThreeInvertsOrthoTypeTwo) {
  const int64_t n = 16;
  const auto x = Noise(n, 5);
  const DctTable two(2, true, n, n), three(3, true, n, n);
  std::vector<float> y(n), back(n);
  Dct(x.data(), 1, 1, two, nullptr, y.data());
  Dct(y.data(), 1, 1, three, nullptr, back.data());
  for (int64_t t = 0; t < n; ++t) EXPECT_NEAR(back[size_t(t)], x[size_t(t)], 1e-5);
}

TEST(Dct, TimeMajorBlocksGiveTheBitsOfTheOtherLayout) {
  // 19 inputs of 30 values: two blocks of 8 and a tail of 3 along `outer`, against the same data
  // transposed (inner 19).
  const int64_t n = 30, count = 19;
  const auto x = Noise(n * count, 12);
  std::vector<float> xt(x.size());
  for (int64_t o = 0; o < count; ++o)
    for (int64_t t = 0; t < n; ++t) xt[size_t(t * count + o)] = x[size_t(o * n + t)];
  const DctTable table(2, true, n, 13);
  const auto lifter = LifterFactors(22.0f, 13);
  std::vector<float> a(size_t(count * 13)), b(a.size());
  Dct(x.data(), count, 1, table, lifter.data(), a.data());
  Dct(xt.data(), 1, count, table, lifter.data(), b.data());
  for (int64_t o = 0; o < count; ++o)
    for (int64_t k = 0; k < 13; ++k) ASSERT_EQ(a[size_t(o * 13 + k)], b[size_t(k * count + o)]) << o << " " << k;
}

TEST(Dct, LifterScalesEachCoefficient) {
  const auto f = LifterFactors(22.0f, 13);
  for (int64_t k = 0; k < 13; ++k) EXPECT_NEAR(f[size_t(k)], 1 + 11 * std::sin(kPi * (k + 1) / 22), 1e-5);
  const int64_t n = 8;
  const auto x = Noise(n * 2, 6);  // (n, inner 2)
  const DctTable table(2, true, n, 4);
  std::vector<float> plain(8), liftered(8);
  Dct(x.data(), 1, 2, table, nullptr, plain.data());
  Dct(x.data(), 1, 2, table, f.data(), liftered.data());
  for (int64_t i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(liftered[size_t(i)], plain[size_t(i)] * f[size_t(i / 2)]);
}

TEST(ToDecibels, FormulaReferenceAndCutoff) {
  const std::vector<float> x = {4.0f, 1.0f, 0.04f, 0.0f, 1e-30f};
  std::vector<float> y(x.size());
  ToDecibels(x.data(), y.data(), 5, {10.0f, 1.0f, false, -200.0f});
  EXPECT_NEAR(y[0], 10 * std::log10(4.0), 1e-5);
  EXPECT_NEAR(y[2], 10 * std::log10(0.04), 1e-5);
  EXPECT_NEAR(y[3], -200.0f, 1e-3) << "0 saturates at cutoff_db";
  ToDecibels(x.data(), y.data(), 5, {20.0f, 0.0f, true, -80.0f});  // reference: the max, 4
  EXPECT_NEAR(y[0], 0.0f, 1e-6);
  EXPECT_NEAR(y[1], 20 * std::log10(0.25), 1e-5);
  EXPECT_NEAR(y[2], -40.0f, 1e-4) << "0.01 of the max, above the cutoff ratio 1e-4";
  EXPECT_NEAR(y[4], -80.0f, 1e-4);
  const std::vector<float> zeros(3, 0.0f);
  std::vector<float> z(3, 1.0f);
  ToDecibels(zeros.data(), z.data(), 3, {10.0f, 0.0f, true, -60.0f});
  for (float v : z) EXPECT_NEAR(v, -60.0f, 1e-4) << "reference 0: cutoff_db everywhere";
  const std::vector<float> negative = {-1.0f, -2.0f, -0.5f};
  ToDecibels(negative.data(), z.data(), 3, {10.0f, 0.0f, true, -60.0f});
  for (float v : z) EXPECT_NEAR(v, -60.0f, 1e-4) << "the maximum starts at 0 (DALI): reference 0 again";
  EXPECT_GT(DecibelMinRatio(10.0f, -1000.0f), 0.0f) << "an underflowing ratio is the smallest float";
  ToDecibels(zeros.data(), z.data(), 3, {10.0f, 1.0f, false, -1000.0f});
  for (float v : z) EXPECT_NEAR(v, 10 * std::log10(double(std::numeric_limits<float>::denorm_min())), 0.01);
}

TEST(ToDecibels, EveryElementAndTheTailAgreeWithLog10) {
  // Lengths around the vector widths: the tail goes through the same code as the body.
  for (int64_t n : {1, 3, 4, 7, 8, 15, 16, 17, 33, 1000}) {
    std::vector<float> x(static_cast<size_t>(n)), y(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = std::exp(-0.37f * float(i)) * 3.0f;
    ToDecibels(x.data(), y.data(), n, {10.0f, 0.0f, true, -60.0f});
    for (int64_t i = 0; i < n; ++i) {
      const double ref = std::max(-60.0, 10 * std::log10(double(x[size_t(i)]) / 3.0));
      ASSERT_NEAR(y[size_t(i)], ref, 2e-5 * (1 + std::abs(ref))) << "n " << n << " i " << i;
    }
    ToDecibels(x.data(), x.data(), n, {10.0f, 0.0f, true, -60.0f});  // in place
    ASSERT_EQ(x, y);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> with_nan = {nan, 2.0f, nan, 0.5f};
  std::vector<float> out(4);
  ToDecibels(with_nan.data(), out.data(), 4, {10.0f, 0.0f, true, -50.0f});
  EXPECT_NEAR(out[0], -50.0f, 1e-4) << "NaN: the cutoff, as std::max(min_ratio, NaN)";
  EXPECT_NEAR(out[1], 0.0f, 1e-6) << "the maximum skips NaN";
  EXPECT_NEAR(out[3], 10 * std::log10(0.25), 1e-5);
}

TEST(MovingMeanSquare, MatchesDirectSumsWithAndWithoutResets) {
  const int64_t n = 5000, window = 64;
  const auto x = Noise(n, 8, 0.3f);
  std::vector<float> none(n), every(n), often(n);
  MovingMeanSquare(x.data(), DType::kFloat32, n, window, -1, none.data());
  MovingMeanSquare(x.data(), DType::kFloat32, n, window, 0, every.data());
  MovingMeanSquare(x.data(), DType::kFloat32, n, window, 256, often.data());
  for (int64_t i = 0; i <= n - window; ++i) {
    double s = 0;
    for (int64_t t = i; t < i + window; ++t) s += double(x[size_t(t)]) * x[size_t(t)];
    s /= window;
    EXPECT_NEAR(none[size_t(i)], s, 1e-4 * s + 1e-6) << i;
    EXPECT_NEAR(every[size_t(i)], s, 1e-5 * s) << i;
    EXPECT_NEAR(often[size_t(i)], s, 1e-5 * s + 1e-7) << i;
  }
  // 16-bit integers: exact sums in int64, whatever the reset interval.
  std::vector<int16_t> pcm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) pcm[size_t(i)] = int16_t(std::lround(x[size_t(i)] * 30000));
  std::vector<float> a(n), b(n);
  MovingMeanSquare(pcm.data(), DType::kInt16, n, window, -1, a.data());
  MovingMeanSquare(pcm.data(), DType::kInt16, n, window, 0, b.data());
  for (int64_t i = 0; i <= n - window; ++i) ASSERT_EQ(a[size_t(i)], b[size_t(i)]) << i;
}

TEST(MovingMeanSquare, QuietWindowsAfterALoudBurstKeepTheirValue) {
  // A burst 1e12 times the power of the quiet samples after it. A float32 running sum (DALI's older
  // kernel, and ours once) keeps an error of the burst's scale once the burst has left the window;
  // the double sum stays within 1% without resets and exact again after a reset.
  const int64_t window = 64, n = 4096;
  std::vector<float> x(static_cast<size_t>(n), 1e-2f);
  for (int64_t i = 0; i < 64; ++i) x[size_t(i)] = 1e4f * (i % 2 ? 1.0f : -0.7f);
  std::vector<float> never(n), reset(n);
  MovingMeanSquare(x.data(), DType::kFloat32, n, window, -1, never.data());
  MovingMeanSquare(x.data(), DType::kFloat32, n, window, 128, reset.data());
  const float quiet = 1e-4f;  // the mean square of 1e-2
  float running = 0;  // the float32 running sum, for contrast
  for (int64_t t = 0; t < window; ++t) running += x[size_t(t)] * x[size_t(t)];
  double worst_float = 0;
  for (int64_t i = 1; i <= n - window; ++i) {
    running += x[size_t(i + window - 1)] * x[size_t(i + window - 1)] - x[size_t(i - 1)] * x[size_t(i - 1)];
    if (i < 128) continue;
    EXPECT_NEAR(reset[size_t(i)], quiet, 1e-6 * quiet) << i;
    EXPECT_NEAR(never[size_t(i)], quiet, 1e-2 * quiet) << i;
    worst_float = std::max(worst_float, std::abs(double(running) / window - quiet));
  }
  EXPECT_GT(worst_float, quiet) << "a float32 running sum drifts here (else this test shows nothing)";
}

TEST(NonsilentRegion, FindsTheFirstAndLastLoudWindows) {
  // 100 zeros, 50 loud samples, 100 quiet ones (-40 dB), 50 zeros; window 10.
  std::vector<float> x(300, 0.0f);
  for (int i = 100; i < 150; ++i) x[size_t(i)] = 1.0f;
  for (int i = 150; i < 250; ++i) x[size_t(i)] = 0.01f;
  std::vector<float> scratch(x.size());
  NonsilentRegionArgs a;
  a.window_length = 10;
  a.cutoff_db = -60;  // the quiet part (-40 dB) is not silent
  auto r = FindNonsilentRegion(x.data(), DType::kFloat32, 300, a, scratch.data());
  EXPECT_EQ(r.begin, 91);  // window [91, 101) holds one loud sample: -10 dB
  EXPECT_EQ(r.length, 249 + 10 - 91);  // to the end of the last window holding a quiet sample
  a.cutoff_db = -30;  // now the quiet part is silent
  r = FindNonsilentRegion(x.data(), DType::kFloat32, 300, a, scratch.data());
  EXPECT_EQ(r.begin, 91);
  EXPECT_EQ(r.length, 149 + 10 - 91);  // the last window holding a loud sample starts at 149
  a.reference_max = false;
  a.reference_power = 1e6f;  // everything is > 60 dB below this reference
  r = FindNonsilentRegion(x.data(), DType::kFloat32, 300, a, scratch.data());
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.length, 0);
}

TEST(NonsilentRegion, EdgeCasesAsDali) {
  std::vector<float> scratch(8);
  const std::vector<float> zeros(8, 0.0f);
  NonsilentRegionArgs a;  // window 2048 > n: clamped to n, one window
  auto r = FindNonsilentRegion(zeros.data(), DType::kFloat32, 8, a, scratch.data());
  EXPECT_EQ(r.begin, 0);
  EXPECT_EQ(r.length, 8) << "reference 0: nothing is below it";
  r = FindNonsilentRegion(zeros.data(), DType::kFloat32, 0, a, scratch.data());
  EXPECT_EQ(r.length, 0);
  std::vector<float> last_only(8, 0.0f);
  last_only[7] = 1.0f;
  r = FindNonsilentRegion(last_only.data(), DType::kFloat32, 8, a, scratch.data());
  EXPECT_EQ(r.begin, 0) << "one window, the whole signal";
  EXPECT_EQ(r.length, 8);
  const std::vector<uint8_t> bytes = {0, 0, 0, 200, 0, 0, 0, 0};
  a.window_length = 2;
  r = FindNonsilentRegion(bytes.data(), DType::kUInt8, 8, a, scratch.data());
  EXPECT_EQ(r.begin, 2);
  EXPECT_EQ(r.length, 3 + 2 - 2);  // windows 2 and 3 hold the sample: samples 2..4
}

}  // namespace
}  // namespace sluice::kernels
