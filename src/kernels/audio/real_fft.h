// The forward DFT of a real signal, and its magnitude or power spectrum, over PocketFFT (float;
// third_party/pocketfft, the FFT NumPy and SciPy use):
//
//   X[k] = sum_{t<n} x[t] * exp(-2 * pi * i * k * t / n),   k in [0, n/2]
// (the non-negative frequencies: the others are their conjugates). Any n >= 1 (PocketFFT picks
// mixed radix or Bluestein); the transform computes in float32.
//
// Two ways in. One frame: Forward / Spectrum take x (which may be frame()). Several frames at once:
// the caller writes up to lane_count() frames interleaved into lanes() (sample t of frame j at
// lanes()[t * lane_count() + j]) and SpectrumOfLanes transforms them together, one frame per
// SIMD lane: the spectrogram's path, about 2.5x the throughput of one frame at a time.
//
// Ownership and threads: a RealFft owns its plan and its buffers, made by the constructor. The
// calls are not reentrant on one object (they use its buffers), so each thread uses its own. They
// allocate only PocketFFT's scratch of one transform (n values of the lane type) per call.
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

  // Frames transformed together by SpectrumOfLanes (the SIMD width PocketFFT was built with).
  static int lane_count();
  // size() * lane_count() floats, interleaved by frame (see above). The transform runs in place:
  // after SpectrumOfLanes the caller must rewrite every sample it needs, zeros included.
  float* lanes() { return lanes_.data(); }
  // For frame j < frames (<= lane_count()): out[j * frame_stride + k * bin_stride] = bin k of
  // |X_j|^power, as Spectrum. Lanes j >= frames are transformed and discarded.
  void SpectrumOfLanes(int frames, int power, float* out, int64_t bin_stride, int64_t frame_stride);

 private:
  struct Plan;
  void TransformWork();  // work_ in place, to PocketFFT's half-complex order

  int64_t n_;
  std::unique_ptr<Plan> plan_;
  std::vector<float> frame_;
  std::vector<float> work_;   // n: the one-frame transform's buffer
  std::vector<float> lanes_;  // n * lane_count(), 16-byte aligned by its allocator (see real_fft.cc)
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
