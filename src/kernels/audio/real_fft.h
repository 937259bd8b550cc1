// The forward DFT of a real signal, and its magnitude or power spectrum, over KISS FFT (float).
//
//   X[k] = sum_{t<n} x[t] * exp(-2 * pi * i * k * t / n),   k in [0, n/2]
// (the non-negative frequencies: the others are their conjugates). Even n use kiss_fftr, odd n
// the complex kiss_fft (kiss_fftr takes even sizes only); both compute in float32.
//
// Ownership and threads: a RealFft owns its KISS FFT plan and its buffers, made by the
// constructor; Forward and Spectrum allocate nothing and are not reentrant on one object (they use
// its buffers), so each thread uses its own. RealFftCache keeps one RealFft per size for one
// thread (an operator holds one cache per thread of its pool).
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace sluice::kernels {

class RealFft {
 public:
  explicit RealFft(int64_t n);  // n >= 1; throws std::invalid_argument otherwise
  ~RealFft();
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  int64_t size() const { return n_; }
  int64_t num_bins() const { return n_ / 2 + 1; }

  // A buffer of size() floats owned by this object, for the caller to build a frame in and pass
  // to Forward/Spectrum (zero-initialized once; the caller rewrites what it uses).
  float* frame() { return frame_.data(); }

  // x: size() floats (may be frame()). out: num_bins() values.
  void Forward(const float* x, std::complex<float>* out);
  // out[k * stride] = |X[k]| (power 1) or |X[k]|^2 (power 2, re^2 + im^2), k in [0, num_bins()).
  void Spectrum(const float* x, int power, float* out, int64_t stride);

 private:
  struct Plan;
  int64_t n_;
  std::unique_ptr<Plan> plan_;
  std::vector<float> frame_;
  std::vector<std::complex<float>> spectrum_;  // num_bins(): Spectrum's transform
  std::vector<std::complex<float>> complex_in_, complex_out_;  // n each, odd n only
};

// One thread's RealFft objects, by size (created on first use; a handful of sizes is expected, so
// they are looked up linearly). Not thread-safe.
class RealFftCache {
 public:
  RealFft& Get(int64_t n);

 private:
  std::vector<std::unique_ptr<RealFft>> plans_;
};

}  // namespace sluice::kernels
