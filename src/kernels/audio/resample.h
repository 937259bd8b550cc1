// Band-limited resampling of audio (DALI's audio_resample and the `sample_rate` of decoders.audio
// and readers.nemo_asr; dali/kernels/signal/resampling.h): a windowed-sinc interpolator whose
// extent is `lobes` zero crossings of the sinc on either side (quality 0 -> 3, 50 -> 16, 100 -> 64).
//
//   out[j] = sum over i in [0, n_in) of in[i] * h(i - x_j),   x_j = j * in_rate / out_rate
//   h(t)   = sinc(t / s) * hann(t / (s * lobes)),   s = max(1, in_rate / out_rate)
//   sinc(u) = sin(pi u) / (pi u),   hann(v) = (1 + cos(pi v)) / 2 for |v| < 1, else 0
// with the taps of each output normalised to sum to 1 (a constant signal stays exactly constant
// away from the ends). An output that falls on an input sample when upsampling (or at the same
// rate) is that sample, exactly. Samples outside the input are zeros. The first output sits on the
// first input (x_0 = 0), as in DALI. When upsampling (s = 1) this is DALI's filter; when
// downsampling the filter is stretched by s so that its cut-off is the output's Nyquist frequency,
// where DALI keeps the input's and folds everything between the two Nyquist frequencies into the
// output (aliasing).
//
// Arithmetic: taps are computed in double (exact sines) and rounded to float, once per phase, in
// the constructor. Integer rates (the usual case) have exact phases (integer arithmetic) and, when
// there are at most 1024 of them (44.1 kHz -> 16 kHz has 160), a table row per phase. Other ratios
// (and integer ones with more phases) interpolate linearly between the rows of a grid of 256 to
// 2048 phases (an error of about 3e-7 of the largest tap, float rounding's order). Filters too long for a table of 256
// phases (downsampling by more than ~128 at 16 lobes) compute each output's taps; ratios needing
// over 2e6 taps are refused. Each output is a float dot product (Highway SIMD for one channel, so
// the order of the sums, and the last bits, depend on the CPU's vector width), converted to the
// output type: float32 as is; integer types as value * max(T) rounded to nearest even and saturated
// (DALI's ConvertSatNorm; unsigned outputs expect values in [0, 1]).
//
// Thread-safety: a Resampler is immutable after construction; Resample is reentrant and may run on
// many threads at once. Construction fills the table (up to 4 MiB; microseconds to a few ms);
// Resample allocates one buffer of taps (multi-channel input on the grid, or taps per output).
#pragma once
#include <cstdint>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

// DALI's quality -> lobes: round(0.007 q^2 - 0.09 q + 3), halves away from zero; q in [0, 100].
int ResamplingLobes(double quality);

// DALI's output length: ceil(in_length * out_rate / in_rate) (in double; exact for integer rates).
// 0 when out_rate is 0. in_rate > 0, out_rate >= 0.
int64_t ResampledLength(int64_t in_length, double in_rate, double out_rate);

class Resampler {
 public:
  // in_rate > 0, out_rate > 0 (any unit, the same for both), lobes >= 1.
  Resampler(double in_rate, double out_rate, int lobes);

  // Resamples `in` (n_in frames of `channels` interleaved float samples) into `out` (out_frames
  // frames of `channels` interleaved samples of out_type: kFloat32, kInt8, kUInt8, kInt16,
  // kUInt16 or kInt32). Usually out_frames = ResampledLength(n_in, in_rate, out_rate); any count
  // may be asked for (outputs past the input's end are zeros). in and out must not overlap.
  void Resample(const float* in, int64_t n_in, int channels, void* out, DType out_type, int64_t out_frames) const;

  int taps() const { return taps_; }             // taps per output (some are zero)
  bool exact_phases() const { return grid_ == 0 && !direct_; }  // one table row per phase (integer rates)
  bool direct() const { return direct_; }  // no table: taps computed for each output

 private:
  // The taps for an output at fractional position f in [0, 1] past its base input sample:
  // w[k] weighs input base + first_tap_ + k.
  void ComputeTaps(double f, float* w) const;
  template <typename Out>
  void ResampleTo(const float* in, int64_t n_in, int channels, Out* out, int64_t out_frames) const;

  double in_rate_, out_rate_;
  double stretch_;     // s
  int lobes_;
  int first_tap_;      // offset of tap 0 from floor(x_j)
  int taps_;
  // Integer rates: x_j = j * step_ / phases_ exactly.
  bool exact_ = false;
  int64_t step_ = 0, phases_ = 0;
  // Per tap offset m: sin, cos of pi m / s and of pi m / (s * lobes).
  std::vector<double> sin_m_, cos_m_, sin_w_, cos_w_;
  int64_t grid_ = 0;  // 0: one row per exact phase; else rows for phases g / grid_, g = 0..grid_
  bool direct_ = false;  // too many taps for a table (downsampling by over ~128)
  int64_t rows_ = 0;
  std::vector<float> table_;  // rows_ x taps_
};

}  // namespace sluice::kernels
