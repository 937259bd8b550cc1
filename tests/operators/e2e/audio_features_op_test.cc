// The audio feature operators (spectrogram, power_spectrum, mel_filter_bank, to_decibels, mfcc,
// nonsilent_region) through a pipeline, with the shared harness (op_harness.h): output shapes,
// layouts and types, determinism across thread counts, bad arguments rejected at the call, bad
// data at run time. Their arithmetic is tests/kernels/audio_spectral_test.cc's and, against
// librosa, python/tests/test_audio_features.py's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "op_harness.h"

namespace sluice::testing {
namespace {

std::vector<float> Chirp(int64_t n, float f0, uint32_t seed) {
  std::vector<float> x(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t)
    x[size_t(t)] = 0.5f * std::sin(f0 * float(t) * (1.0f + float(t) / float(n))) + 0.01f * float((t * 7919 + seed) % 13);
  return x;
}

// Signals of different lengths (a batch that is not dense).
HostBatch Signals(std::vector<int64_t> lengths, std::string layout = "") {
  std::vector<std::vector<float>> s;
  std::vector<TensorShape> shapes;
  for (size_t i = 0; i < lengths.size(); ++i) {
    s.push_back(Chirp(lengths[i], 0.01f * float(i + 1), uint32_t(i)));
    shapes.push_back(TensorShape{lengths[i]});
  }
  return HostBatch::Of(s, shapes, std::move(layout));
}

// Positive "spectra" of the given shapes (f, t or t, f).
HostBatch Spectra(const std::vector<TensorShape>& shapes, const std::string& layout) {
  std::vector<std::vector<float>> s;
  for (const auto& sh : shapes) {
    s.emplace_back();
    for (int64_t e = 0; e < sh.num_elements(); ++e) s.back().push_back(1.0f + float((e * 31) % 17));
  }
  return HostBatch::Of(s, shapes, layout);
}

std::vector<float> Values(const Batch& b, int i) {
  std::vector<float> v(b.nbytes(i) / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), b.data(i), b.nbytes(i));
  return v;
}

TEST(SpectrogramOp, ShapesAndLayoutsAsDali) {
  // Defaults: window_length 512, window_step 256, nfft = window_length, centered: n / 256 + 1 windows.
  auto out = RunOpCase({OperatorDef("spectrogram"), Signals({4000, 1000}), {}});
  ASSERT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(out[0].layout(), "ft");
  EXPECT_EQ(out[0].shape(0), (TensorShape{257, 4000 / 256 + 1}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{257, 1000 / 256 + 1}));
  const auto ft = Values(out[0], 0);

  out = RunOpCase({OperatorDef("spectrogram").Arg("layout", std::string("tf")), Signals({4000, 1000}), {}});
  EXPECT_EQ(out[0].layout(), "tf");
  ASSERT_EQ(out[0].shape(0), (TensorShape{16, 257}));
  const auto tf = Values(out[0], 0);
  for (int64_t k = 0; k < 257; ++k)
    for (int64_t w = 0; w < 16; ++w) ASSERT_EQ(ft[size_t(k * 16 + w)], tf[size_t(w * 257 + k)]) << "transposed";

  // Not centered: only windows inside the signal; nfft above window_length adds bins.
  out = RunOpCase({OperatorDef("spectrogram").Arg("center_windows", false).Arg("window_length", int64_t{400})
                       .Arg("window_step", int64_t{160}).Arg("nfft", int64_t{512}),
                   Signals({4000}), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{257, (4000 - 400) / 160 + 1}));

  // One channel given as (n, 1) is a signal too.
  HostBatch column = Signals({1000});
  column.shapes[0] = TensorShape{1000, 1};
  out = RunOpCase({OperatorDef("spectrogram"), column, {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{257, 4}));
}

TEST(SpectrogramOp, WindowFnAndPowerChangeTheResult) {
  const HostBatch in = Signals({2000});
  const auto base = Values(RunOpCase({OperatorDef("spectrogram").Arg("window_length", int64_t{4})
                                          .Arg("window_step", int64_t{2}), in, {}})[0], 0);
  const auto ones = Values(RunOpCase({OperatorDef("spectrogram").Arg("window_length", int64_t{4})
                                          .Arg("window_step", int64_t{2}).Arg("window_fn", std::vector<double>{1, 1, 1, 1}),
                                      in, {}})[0], 0);
  const auto magnitude = Values(RunOpCase({OperatorDef("spectrogram").Arg("window_length", int64_t{4})
                                               .Arg("window_step", int64_t{2}).Arg("power", int64_t{1}), in, {}})[0], 0);
  ASSERT_EQ(base.size(), ones.size());
  EXPECT_NE(base, ones);
  // A rectangular window's DC bin of the window centered on sample 500 is (x[498] + ... + x[501])^2.
  const auto x = Chirp(2000, 0.01f, 0);
  const float dc = x[498] + x[499] + x[500] + x[501];
  const int64_t windows = 2000 / 2 + 1;
  EXPECT_NEAR(ones[size_t(250)], dc * dc, 1e-5);
  for (size_t i = 0; i < base.size(); ++i) ASSERT_NEAR(magnitude[i] * magnitude[i], base[i], 1e-5 + 1e-5 * base[i]);
  EXPECT_EQ(base.size(), size_t(3 * windows));
}

TEST(PowerSpectrumOp, AxisAndNfft) {
  HostBatch in = Spectra({TensorShape{3, 10}, TensorShape{3, 6}}, "");
  auto out = RunOpCase({OperatorDef("power_spectrum"), in, {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{3, 6}));  // nfft = 10 along the last axis
  EXPECT_EQ(out[0].shape(1), (TensorShape{3, 4}));
  out = RunOpCase({OperatorDef("power_spectrum").Arg("axis", int64_t{0}).Arg("nfft", int64_t{16}), in, {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{9, 10}));
  // The DC bin of a column is the square of its sum.
  const auto v = Values(out[0], 0);
  const float sum = (1.0f + float(0 % 17)) + (1.0f + float(310 % 17)) + (1.0f + float(620 % 17));  // x[0], x[10], x[20]
  EXPECT_NEAR(v[0], sum * sum, 1e-3);
}

TEST(MelFilterBankOp, FindsTheFrequencyAxisByLayoutOrRank) {
  const OperatorDef mel = OperatorDef("mel_filter_bank").Arg("nfilter", int64_t{10}).Arg("sample_rate", 16000.0);
  auto out = RunOpCase({mel, Spectra({TensorShape{129, 7}}, "ft"), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{10, 7}));
  EXPECT_EQ(out[0].layout(), "ft");
  const auto ft = Values(out[0], 0);
  out = RunOpCase({mel, Spectra({TensorShape{7, 129}}, "tf"), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{7, 10}));
  out = RunOpCase({mel, Spectra({TensorShape{129, 7}}, ""), {}});  // 2-D without a layout: "ft"
  EXPECT_EQ(Values(out[0], 0), ft);
  out = RunOpCase({mel, Spectra({TensorShape{2, 129, 7}}, ""), {}});  // "*ft"
  EXPECT_EQ(out[0].shape(0), (TensorShape{2, 10, 7}));
  out = RunOpCase({mel, Spectra({TensorShape{129}}, ""), {}});  // "f"
  EXPECT_EQ(out[0].shape(0), (TensorShape{10}));
}

TEST(ToDecibelsOp, ReferenceIsTheMaxPerSampleUnlessGiven) {
  const HostBatch in = HostBatch::Of<float>({{1.0f, 10.0f, 100.0f}, {4.0f, 0.4f}}, {TensorShape{3}, TensorShape{2}}, "t");
  auto out = RunOpCase({OperatorDef("to_decibels"), in, {}});
  EXPECT_EQ(out[0].layout(), "t");
  const auto a = Values(out[0], 0), b = Values(out[0], 1);
  EXPECT_NEAR(a[0], -20.0f, 1e-4);
  EXPECT_NEAR(a[2], 0.0f, 1e-5);
  EXPECT_NEAR(b[1], -10.0f, 1e-4);
  out = RunOpCase({OperatorDef("to_decibels").Arg("reference", 1.0).Arg("multiplier", 20.0).Arg("cutoff_db", -10.0), in, {}});
  EXPECT_NEAR(Values(out[0], 0)[2], 40.0f, 1e-4);
  EXPECT_NEAR(Values(out[0], 1)[1], -7.9588f, 1e-3);  // 20 log10(0.4), above the cutoff
  // reference 0, the default written out: the maximum (DALI rejects 0 given).
  EXPECT_EQ(Fingerprint(RunOpCase({OperatorDef("to_decibels").Arg("reference", 0.0), in, {}})),
            Fingerprint(RunOpCase({OperatorDef("to_decibels"), in, {}})));
}

TEST(MfccOp, CoefficientsAlongTheAxisAtMostItsExtent) {
  auto out = RunOpCase({OperatorDef("mfcc").Arg("n_mfcc", int64_t{13}), Spectra({TensorShape{40, 9}, TensorShape{8, 9}}, "ft"), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{13, 9}));
  EXPECT_EQ(out[0].shape(1), (TensorShape{8, 9})) << "n_mfcc above the extent: the extent, as DALI";
  out = RunOpCase({OperatorDef("mfcc").Arg("axis", int64_t{1}).Arg("n_mfcc", int64_t{4}), Spectra({TensorShape{9, 40}}, "tf"), {}});
  EXPECT_EQ(out[0].shape(0), (TensorShape{9, 4}));
  // dct_type 2 unnormalized: coefficient 0 is the sum along the axis.
  const auto v = Values(out[0], 0);
  float sum = 0;
  for (int e = 0; e < 40; ++e) sum += 1.0f + float((e * 31) % 17);
  EXPECT_NEAR(v[0], sum, 1e-3);
}

TEST(NonsilentRegionOp, Int32ScalarsForAnyAudioType) {
  std::vector<int16_t> pcm(1000, 0);
  for (int t = 300; t < 600; ++t) pcm[size_t(t)] = int16_t(8000 * ((t % 7) - 3));
  const HostBatch in = HostBatch::Of<int16_t>({pcm}, {TensorShape{1000}});
  const auto out = RunOpCase({OperatorDef("nonsilent_region").Arg("window_length", int64_t{100}), in, {}});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].dtype(), DType::kInt32);
  EXPECT_EQ(out[0].shape(0), TensorShape{});
  const int32_t begin = *static_cast<const int32_t*>(out[0].data(0));
  const int32_t length = *static_cast<const int32_t*>(out[1].data(0));
  EXPECT_EQ(begin, 300 - 100 + 1);  // the first window holding sample 300, the first nonzero one
  EXPECT_EQ(begin + length, 599 + 100);  // to the end of the window that starts at the last one
}

TEST(AudioFeatureOps, SameBatchesForAnyThreadCount) {
  const HostBatch signals = Signals({3000, 4500, 2100, 5000, 3333, 4097, 2048});
  ExpectSameForAnyThreadCount({OperatorDef("spectrogram").Arg("window_length", int64_t{400}).Arg("window_step", int64_t{160}),
                               signals, {}});
  ExpectSameForAnyThreadCount({OperatorDef("power_spectrum"), signals, {}});
  ExpectSameForAnyThreadCount({OperatorDef("nonsilent_region").Arg("window_length", int64_t{256}), signals, {}});
  ExpectSameForAnyThreadCount({OperatorDef("to_decibels"), signals, {}});
  const HostBatch spectra = Spectra({TensorShape{257, 30}, TensorShape{257, 45}, TensorShape{129, 12}, TensorShape{257, 3},
                                     TensorShape{513, 9}},
                                    "ft");
  ExpectSameForAnyThreadCount({OperatorDef("mel_filter_bank").Arg("nfilter", int64_t{40}), spectra, {}});
  ExpectSameForAnyThreadCount({OperatorDef("mfcc").Arg("lifter", 22.0), spectra, {}});
}

TEST(AudioFeatureOps, BadArgumentsAreErrorsAtTheCall) {
  ExpectCallError(OperatorDef("spectrogram").Arg("nfft", int64_t{256}), "nfft", "must be >= window_length (512)");
  ExpectCallError(OperatorDef("spectrogram").Arg("window_step", int64_t{0}), "window_step", ">= 1");
  ExpectCallError(OperatorDef("spectrogram").Arg("window_length", int64_t{-4}), "window_length", ">= 1");
  ExpectCallError(OperatorDef("spectrogram").Arg("power", int64_t{3}), "power", "[1, 2]");
  ExpectCallError(OperatorDef("spectrogram").Arg("layout", std::string("ftc")), "layout", "'ft', 'tf'");
  ExpectCallError(OperatorDef("spectrogram").Arg("window_length", int64_t{4}).Arg("window_fn", std::vector<double>{1, 1}),
                  "window_fn", "has 2 samples, window_length is 4");
  ExpectCallError(OperatorDef("power_spectrum").Arg("nfft", int64_t{0}), "nfft", "must be >= 1");
  ExpectCallError(OperatorDef("power_spectrum").Arg("power", int64_t{0}), "power", "[1, 2]");
  ExpectCallError(OperatorDef("mel_filter_bank").Arg("sample_rate", 16000.0).Arg("freq_high", 8001.0), "freq_high",
                  "must be <= sample_rate / 2");
  ExpectCallError(OperatorDef("mel_filter_bank").Arg("nfilter", int64_t{0}), "nfilter", ">= 1");
  ExpectCallError(OperatorDef("mel_filter_bank").Arg("sample_rate", 0.0), "sample_rate", "> 0");
  ExpectCallError(OperatorDef("mel_filter_bank").Arg("freq_low", 500.0).Arg("freq_high", 400.0), "freq_low",
                  "must be below freq_high");
  ExpectCallError(OperatorDef("mel_filter_bank").Arg("mel_formula", std::string("slaneyy")), "mel_formula", "slaney");
  ExpectCallError(OperatorDef("mfcc").Arg("dct_type", int64_t{5}), "dct_type", "[1, 4]");
  ExpectCallError(OperatorDef("mfcc").Arg("dct_type", int64_t{1}).Arg("normalize", true), "normalize", "dct_type 1");
  ExpectCallError(OperatorDef("mfcc").Arg("n_mfcc", int64_t{0}), "n_mfcc", ">= 1");
  ExpectCallError(OperatorDef("mfcc").Arg("axis", int64_t{-1}), "axis", ">= 0");
  ExpectCallError(OperatorDef("nonsilent_region").Arg("reference_power", -1.0), "reference_power", ">= 0");
  ExpectCallError(OperatorDef("nonsilent_region").Arg("window_length", int64_t{0}), "window_length", ">= 1");
  ExpectCallError(OperatorDef("nonsilent_region").Arg("reset_interval", int64_t{-2}), "reset_interval", ">= -1");
}

TEST(AudioFeatureOps, BadDataIsAnErrorWhenTheBatchRuns) {
  ExpectRunError({OperatorDef("spectrogram"), Spectra({TensorShape{2, 600}}, ""), {}}, "expected a 1-D signal");
  // DALI's count truncates toward zero: (300 - 512) / 256 + 1 = 1 window, (200 - 512) / 256 + 1 = 0.
  EXPECT_NO_THROW(RunOpCase({OperatorDef("spectrogram").Arg("center_windows", false), Signals({300}), {}}));
  ExpectRunError({OperatorDef("spectrogram").Arg("center_windows", false), Signals({200}), {}},
                 "shorter than window_length (512)");
  HostBatch ints = HostBatch::Of<int16_t>({{1, 2, 3}}, {TensorShape{3}});
  ExpectRunError({OperatorDef("spectrogram"), ints, {}}, "int16");
  ExpectRunError({OperatorDef("power_spectrum").Arg("nfft", int64_t{8}), Signals({9}), {}},
                 "nfft (8) is smaller than the extent of axis 0 (9)");
  ExpectRunError({OperatorDef("mel_filter_bank"), Spectra({TensorShape{129, 4}}, "ct"), {}}, "has no frequency axis 'f'");
  ExpectRunError({OperatorDef("mel_filter_bank"), Spectra({TensorShape{1, 4}}, "ft"), {}}, "at least 2 frequency bins");
  ExpectRunError({OperatorDef("mfcc").Arg("axis", int64_t{2}), Spectra({TensorShape{4, 4}}, ""), {}}, "out of range");
  ExpectRunError({OperatorDef("mfcc").Arg("dct_type", int64_t{1}), Spectra({TensorShape{1, 4}}, ""), {}},
                 "DCT type I needs at least 2");
  ExpectRunError({OperatorDef("nonsilent_region"), Spectra({TensorShape{2, 600}}, ""), {}}, "expected a 1-D signal");
  // reset_interval must divide into windows for floating-point input only (DALI's rule).
  const OperatorDef odd = OperatorDef("nonsilent_region").Arg("window_length", int64_t{1000});
  ExpectRunError({odd, Signals({3000}), {}}, "multiple of window_length (1000)");
  EXPECT_NO_THROW(RunOpCase({odd, HostBatch::Of<int16_t>({std::vector<int16_t>(3000, 5)}, {TensorShape{3000}}), {}}));
}

}  // namespace
}  // namespace sluice::testing
