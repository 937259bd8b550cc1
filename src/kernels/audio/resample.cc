#include "kernels/audio/resample.h"

#include "kernels/audio/normalized_convert.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <type_traits>

#include <sluice/error.h>

#include "core/dtype_list.h"
#include "kernels/audio/resample_hwy.h"
#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels {
namespace {

// Integer-rate phases are tabulated exactly up to these sizes (the table is filled in the
// constructor); other ratios interpolate between the taps of a grid of phases in [0, 1], as many as
// fit in kMaxTableTaps (kMinGridPhases at least, kMaxGridPhases at most).
constexpr int64_t kMaxTabulatedPhases = 1024;
constexpr int64_t kMaxTableTaps = int64_t{1} << 20;  // 4 MiB of floats
constexpr int64_t kMinGridPhases = 256, kMaxGridPhases = 2048;

bool IsWholeRate(double r) { return r >= 1 && r <= 2147483647.0 && std::floor(r) == r; }

}  // namespace

int ResamplingLobes(double quality) { return static_cast<int>(std::lround(0.007 * quality * quality - 0.09 * quality + 3)); }

int64_t ResampledLength(int64_t in_length, double in_rate, double out_rate) {
  if (out_rate <= 0 || in_length <= 0) return 0;
  return static_cast<int64_t>(std::ceil(static_cast<double>(in_length) * out_rate / in_rate));
}

Resampler::Resampler(double in_rate, double out_rate, int lobes)
    : in_rate_(in_rate), out_rate_(out_rate), stretch_(std::max(1.0, in_rate / out_rate)), lobes_(lobes) {
  if (!(in_rate > 0) || !(out_rate > 0) || !std::isfinite(in_rate) || !std::isfinite(out_rate))
    throw Error("resampling needs positive, finite rates; got " + std::to_string(in_rate) + " -> " +
                std::to_string(out_rate));
  if (lobes < 1) throw Error("resampling needs at least one lobe, got " + std::to_string(lobes));
  // Taps m with |m - f| < lobes * s for some f in [0, 1): m in [1 - ceil(W), ceil(W)].
  const double half_width = lobes * stretch_;
  if (half_width > 1e6)
    throw Error("resampling from " + std::to_string(in_rate) + " to " + std::to_string(out_rate) + " with " +
                std::to_string(lobes) + " lobes needs a filter of more than 2e6 taps (the ratio is too large)");
  const int w = static_cast<int>(std::ceil(half_width));
  first_tap_ = 1 - w;
  taps_ = 2 * w;
  const double a = std::numbers::pi / stretch_, b = a / lobes;
  for (int k = 0; k < taps_; ++k) {
    const double m = first_tap_ + k;
    sin_m_.push_back(std::sin(a * m));
    cos_m_.push_back(std::cos(a * m));
    sin_w_.push_back(std::sin(b * m));
    cos_w_.push_back(std::cos(b * m));
  }
  if (IsWholeRate(in_rate) && IsWholeRate(out_rate)) {
    const auto in = static_cast<int64_t>(in_rate), out = static_cast<int64_t>(out_rate);
    const int64_t g = std::gcd(in, out);
    exact_ = true;
    step_ = in / g;
    phases_ = out / g;
  }
  if (exact_ && phases_ <= kMaxTabulatedPhases && phases_ * taps_ <= kMaxTableTaps) {
    rows_ = phases_;  // row p: the taps of phase p / phases_
  } else if (taps_ * (kMinGridPhases + 1) <= kMaxTableTaps) {
    grid_ = std::clamp<int64_t>(std::bit_floor(static_cast<uint64_t>(kMaxTableTaps / taps_ - 1)), kMinGridPhases,
                                kMaxGridPhases);
    rows_ = grid_ + 1;  // row g: the taps of phase g / grid_, both ends included
  } else {
    // Downsampling by more than ~128 (at 16 lobes): too many taps to tabulate; each output
    // computes its own (they are few: one per `ratio` inputs).
    direct_ = true;
    return;
  }
  table_.resize(static_cast<size_t>(rows_ * taps_));
  const double denominator = static_cast<double>(grid_ ? grid_ : phases_);
  for (int64_t row = 0; row < rows_; ++row) ComputeTaps(static_cast<double>(row) / denominator, table_.data() + row * taps_);
}

void Resampler::ComputeTaps(double f, float* w) const {
  if (f == 0 && stretch_ == 1) {
    // On an input sample without stretching the sinc is 1 there and 0 at every other integer:
    // the input sample itself, exactly (the identities would leave ~1e-17 for the zeros).
    std::fill(w, w + taps_, 0.f);
    w[-first_tap_] = 1.f;
    return;
  }
  const double a = std::numbers::pi / stretch_, b = a / lobes_;
  const double sf = std::sin(a * f), cf = std::cos(a * f), swf = std::sin(b * f), cwf = std::cos(b * f);
  const double half_width = lobes_ * stretch_;
  const double *sin_m = sin_m_.data(), *cos_m = cos_m_.data(), *sin_w = sin_w_.data(), *cos_w = cos_w_.data();
  // Branch-free, so that the compiler vectorises it: sin(a (m - f)) and cos(b (m - f)) by the
  // angle-difference identities from the exact sines of the integer offsets m (tabulated) and of f.
  for (int k = 0; k < taps_; ++k) {
    const double t = (first_tap_ + k) - f;  // distance from x_j, in input samples
    const double pu = a * t;                // pi * u, u = t / s
    const bool near_zero = std::abs(pu) < 1e-6;
    const double ratio = (sin_m[k] * cf - cos_m[k] * sf) / (near_zero ? 1.0 : pu);  // computed either way
    const double sinc = near_zero ? 1 - pu * pu / 6 : ratio;
    const double hann = 0.5 * (1 + (cos_w[k] * cwf + sin_w[k] * swf));
    const double v = sinc * hann;
    w[k] = static_cast<float>(std::abs(t) < half_width ? v : 0.0);
  }
  // Normalised to a sum of 1: the taps of every phase pass a constant unchanged.
  double sum = 0;
  for (int k = 0; k < taps_; ++k) sum += w[k];
  const double scale = 1 / sum;
  for (int k = 0; k < taps_; ++k) w[k] = static_cast<float>(w[k] * scale);
}

void Resampler::Resample(const float* in, int64_t n_in, int channels, void* out, DType out_type,
                         int64_t out_frames) const {
  if (out_frames <= 0) return;
  if (channels < 1) throw Error("resampling needs at least one channel");
  using Outputs = DTypeList<float, int8_t, uint8_t, int16_t, uint16_t, int32_t>;
  VisitDTypeIn<Outputs>(out_type, "resampling", [&](auto zero) {
    ResampleTo(in, n_in, channels, static_cast<decltype(zero)*>(out), out_frames);
  });
}

template <typename Out>
void Resampler::ResampleTo(const float* in, int64_t n_in, int channels, Out* out, int64_t out_frames) const {
  std::vector<float> mixed((grid_ && channels > 1) || direct_ ? static_cast<size_t>(taps_) : 0),
      acc(static_cast<size_t>(channels));
  int64_t base = 0, phase = 0;  // exact rates: x_j = base + phase / phases_, advanced output by output
  const double ratio = in_rate_ / out_rate_;
  for (int64_t j = 0; j < out_frames; ++j) {
    // Where output j sits (base input sample, fraction f) and its taps: a table row, or two grid
    // rows w0, w1 to mix by a.
    double f = 0;
    if (exact_) {
      if (j > 0) {
        phase += step_;
        base += phase / phases_;
        phase %= phases_;
      }
      f = static_cast<double>(phase) / static_cast<double>(phases_);
    } else {
      const double x = static_cast<double>(j) * ratio;
      const double fl = std::floor(x);
      base = static_cast<int64_t>(fl);
      f = x - fl;
    }
    const float *w0, *w1 = nullptr;
    float a = 0;
    if (direct_) {
      ComputeTaps(f, mixed.data());
      w0 = mixed.data();
    } else if (!grid_) {
      w0 = table_.data() + phase * taps_;
    } else {
      const double g = f * static_cast<double>(grid_);
      const int64_t row = std::min<int64_t>(static_cast<int64_t>(g), grid_ - 1);
      a = static_cast<float>(g - static_cast<double>(row));
      w0 = table_.data() + row * taps_;
      w1 = w0 + taps_;
    }
    const int64_t start = base + first_tap_;  // input index of tap 0
    const int64_t k0 = std::max<int64_t>(0, -start), k1 = std::min<int64_t>(taps_, n_in - start);
    Out* o = out + j * channels;
    if (k0 >= k1) {
      for (int c = 0; c < channels; ++c) o[c] = Out(0);
      continue;
    }
    if (channels == 1) {
      // One channel: dot products with the rows, mixed afterwards (no taps are materialised).
      const float* x = in + start + k0;
      float v = resample_detail::Dot(x, w0 + k0, k1 - k0);
      if (w1) v += a * (resample_detail::Dot(x, w1 + k0, k1 - k0) - v);
      o[0] = ConvertNormalized<Out>(v);
      continue;
    }
    const float* w = w0;
    if (w1) {
      for (int64_t k = k0; k < k1; ++k) mixed[size_t(k)] = w0[k] + a * (w1[k] - w0[k]);
      w = mixed.data();
    }
    std::fill(acc.begin(), acc.end(), 0.f);
    const float* x = in + (start + k0) * channels;
    for (int64_t k = k0; k < k1; ++k, x += channels)
      for (int c = 0; c < channels; ++c) acc[size_t(c)] += w[k] * x[c];
    for (int c = 0; c < channels; ++c) o[c] = ConvertNormalized<Out>(acc[size_t(c)]);
  }
}

}  // namespace sluice::kernels
