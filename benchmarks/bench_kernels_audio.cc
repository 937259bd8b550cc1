// The spectral audio kernels on 10 s of 16 kHz audio (a chirp with noise), one thread: the STFT
// (ASR framing: 25 ms windows 10 ms apart, nfft 512 -> 257 x 1001), the mel filter bank on its
// output (80 and 128 filters), to_decibels and the 13-coefficient DCT, in both layouts.
//   build/release/bench_kernels_audio --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/audio/dct.h"
#include "kernels/audio/mel_filter_bank.h"
#include "kernels/audio/real_fft.h"
#include "kernels/audio/spectrogram.h"
#include "kernels/audio/to_decibels.h"
#include "kernels/audio/window_function.h"

namespace {
using namespace sluice::kernels;

constexpr int64_t kRate = 16000, kLength = 10 * kRate;

std::vector<float> Audio() {
  std::vector<float> x(kLength);
  std::mt19937 rng(1);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  for (int64_t t = 0; t < kLength; ++t) {
    const double s = double(t) / kRate;
    x[size_t(t)] = float(0.5 * std::sin(2 * M_PI * (100 + 300 * s) * s)) + noise(rng);
  }
  return x;
}

StftArgs AsrFraming(bool time_major) { return {512, 400, 160, StftPadding::kReflect, 2, time_major}; }

void BM_Spectrogram(benchmark::State& st) {
  const bool tf = st.range(0) != 0;
  const auto x = Audio();
  const StftArgs a = AsrFraming(tf);
  std::vector<float> window(size_t(a.window_length));
  HannWindow(window.data(), a.window_length);
  std::vector<float> out(size_t(StftNumWindows(kLength, a) * (a.nfft / 2 + 1)));
  RealFft fft(a.nfft);
  for (auto _ : st) {
    Spectrogram(x.data(), kLength, window.data(), a, fft, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel(tf ? "tf" : "ft");
  st.SetItemsProcessed(int64_t(st.iterations()) * kLength);  // audio samples
}
BENCHMARK(BM_Spectrogram)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_RealFft512(benchmark::State& st) {
  const auto x = Audio();
  RealFft fft(512);
  std::vector<float> out(257);
  int64_t at = 0;
  for (auto _ : st) {
    fft.Spectrum(x.data() + at, 2, out.data(), 1);
    at = (at + 160) % (kLength - 512);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_RealFft512);

// The STFT's output (power) as the mel filter bank's input, in the asked layout.
std::vector<float> PowerSpectrogram(bool time_major, int64_t* windows) {
  const auto x = Audio();
  const StftArgs a = AsrFraming(time_major);
  std::vector<float> window(size_t(a.window_length));
  HannWindow(window.data(), a.window_length);
  *windows = StftNumWindows(kLength, a);
  std::vector<float> out(size_t(*windows * 257));
  RealFft fft(512);
  Spectrogram(x.data(), kLength, window.data(), a, fft, out.data());
  return out;
}

void BM_MelFilterBank(benchmark::State& st) {
  const bool tf = st.range(0) != 0;
  int64_t windows = 0;
  const auto spec = PowerSpectrogram(tf, &windows);
  MelFilterBankArgs a;
  a.nfilter = st.range(1);
  a.nfft = 512;
  a.sample_rate = kRate;
  a.freq_high = kRate / 2;
  const MelFilterBank bank(a);
  std::vector<float> out(size_t(a.nfilter * windows));
  for (auto _ : st) {
    // "ft": one (257, windows) block; "tf": windows spectra of 257 bins.
    bank.Apply(spec.data(), tf ? windows : 1, tf ? 1 : windows, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel(tf ? "tf" : "ft");
  st.SetItemsProcessed(int64_t(st.iterations()) * kLength);
}
BENCHMARK(BM_MelFilterBank)->Args({0, 80})->Args({1, 80})->Args({0, 128})->Args({1, 128})->Unit(benchmark::kMicrosecond);

void BM_ToDecibels(benchmark::State& st) {
  std::vector<float> mel(size_t(80 * 1001));
  std::mt19937 rng(2);
  std::exponential_distribution<float> power(1.0f);
  for (auto& v : mel) v = power(rng);
  std::vector<float> out(mel.size());
  for (auto _ : st) {
    ToDecibels(mel.data(), out.data(), int64_t(mel.size()), {10.0f, 0.0f, true, -80.0f});
    benchmark::DoNotOptimize(out.data());
  }
  st.SetItemsProcessed(int64_t(st.iterations()) * int64_t(mel.size()));
}
BENCHMARK(BM_ToDecibels)->Unit(benchmark::kMicrosecond);

void BM_Mfcc(benchmark::State& st) {
  const bool tf = st.range(0) != 0;
  std::vector<float> db(size_t(80 * 1001));
  for (size_t i = 0; i < db.size(); ++i) db[i] = -float(i % 97);
  const DctTable table(2, true, 80, 13);
  std::vector<float> out(size_t(13 * 1001));
  for (auto _ : st) {
    Dct(db.data(), tf ? 1001 : 1, tf ? 1 : 1001, table, nullptr, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  st.SetLabel(tf ? "tf" : "ft");
}
BENCHMARK(BM_Mfcc)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
