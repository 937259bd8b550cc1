#include "kernels/audio/resample.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <type_traits>

#include <sluice/error.h>

#include "kernels/audio/resample_hwy.h"
#include "kernels/tensor/saturate_cast.h"

namespace sluice::kernels {
namespace {

// Phases are tabulated up to these sizes (the table is filled in the constructor).
constexpr int64_t kMaxTabulatedPhases = 1024;
constexpr int64_t kMaxTableTaps = int64_t{1} << 18;  // 1 MiB of floats

bool IsWholeRate(double r) { return r >= 1 && r <= 2147483647.0 && std::floor(r) == r; }

// DALI's ConvertSatNorm for one value: float as is, integers value * max(T), rounded to nearest
// even, saturated.
template <typename Out>
inline Out ConvertNormalized(float v) {
  if constexpr (std::is_same_v<Out, float>) {
    return v;
  } else {
    return SaturateArithmetic<Out>(static_cast<double>(v) * static_cast<double>(std::numeric_limits<Out>::max()));
  }
}

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
  if (half_width > 1e7) throw Error("the resampling filter would have more than 2e7 taps (ratio too large)");
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
    if (phases_ <= kMaxTabulatedPhases && phases_ * taps_ <= kMaxTableTaps) {
      table_.resize(static_cast<size_t>(phases_ * taps_));
      for (int64_t p = 0; p < phases_; ++p)
        ComputeTaps(static_cast<double>(p) / static_cast<double>(phases_), table_.data() + p * taps_);
    }
  }
}

void Resampler::ComputeTaps(double f, float* w) const {
  const double a = std::numbers::pi / stretch_, b = a / lobes_;
  const double sf = std::sin(a * f), cf = std::cos(a * f), swf = std::sin(b * f), cwf = std::cos(b * f);
  const double half_width = lobes_ * stretch_;
  double sum = 0;
  for (int k = 0; k < taps_; ++k) {
    const double t = (first_tap_ + k) - f;  // distance from x_j, in input samples
    double v = 0;
    if (std::abs(t) < half_width) {
      const double pu = a * t;  // pi * u, u = t / s
      // sin(a (m - f)) and cos(b (m - f)) by the angle-difference identities: exact sines of the
      // integer offsets m are tabulated, only f's are computed per output.
      const double sinc = std::abs(pu) < 1e-6 ? 1 - pu * pu / 6 : (sin_m_[size_t(k)] * cf - cos_m_[size_t(k)] * sf) / pu;
      const double hann = 0.5 * (1 + (cos_w_[size_t(k)] * cwf + sin_w_[size_t(k)] * swf));
      v = sinc * hann;
    }
    w[k] = static_cast<float>(v);
    sum += v;
  }
  // Normalised to a sum of 1: the taps of every phase pass a constant unchanged.
  for (int k = 0; k < taps_; ++k) w[k] = static_cast<float>(w[k] / sum);
}

namespace {

// Every output frame j in order: taps_of(j, &base) gives its taps and base input sample.
template <typename Out, typename TapsOf>
void ResampleFrames(const float* in, int64_t n_in, int channels, Out* out, int64_t out_frames, int first_tap, int taps,
                    TapsOf&& taps_of) {
  std::vector<float> acc(static_cast<size_t>(channels));
  for (int64_t j = 0; j < out_frames; ++j) {
    int64_t base = 0;
    const float* w = taps_of(j, &base);
    const int64_t start = base + first_tap;  // input index of tap 0
    const int64_t k0 = std::max<int64_t>(0, -start), k1 = std::min<int64_t>(taps, n_in - start);
    Out* o = out + j * channels;
    if (k0 >= k1) {
      for (int c = 0; c < channels; ++c) o[c] = Out(0);
      continue;
    }
    if (channels == 1) {
      o[0] = ConvertNormalized<Out>(resample_detail::Dot(in + start + k0, w + k0, k1 - k0));
      continue;
    }
    std::fill(acc.begin(), acc.end(), 0.f);
    const float* x = in + (start + k0) * channels;
    for (int64_t k = k0; k < k1; ++k, x += channels)
      for (int c = 0; c < channels; ++c) acc[size_t(c)] += w[k] * x[c];
    for (int c = 0; c < channels; ++c) o[c] = ConvertNormalized<Out>(acc[size_t(c)]);
  }
}

}  // namespace

void Resampler::Resample(const float* in, int64_t n_in, int channels, void* out, DType out_type,
                         int64_t out_frames) const {
  if (out_frames <= 0) return;
  if (channels < 1) throw Error("resampling needs at least one channel");
  std::vector<float> scratch;
  if (table_.empty()) scratch.resize(static_cast<size_t>(taps_));
  // Where output j sits: its base input sample and the taps for its phase.
  int64_t next_j = 0, base = 0, phase = 0;  // exact rates: x_j = base + phase / phases_
  const double ratio = in_rate_ / out_rate_;
  auto taps_of = [&](int64_t j, int64_t* base_out) -> const float* {
    if (exact_) {
      // Outputs are visited in order: advance by one step of step_ / phases_ input samples.
      for (; next_j < j; ++next_j) {
        phase += step_;
        base += phase / phases_;
        phase %= phases_;
      }
      *base_out = base;
      if (!table_.empty()) return table_.data() + phase * taps_;
      ComputeTaps(static_cast<double>(phase) / static_cast<double>(phases_), scratch.data());
      return scratch.data();
    }
    const double x = static_cast<double>(j) * ratio;
    const double fl = std::floor(x);
    *base_out = static_cast<int64_t>(fl);
    ComputeTaps(x - fl, scratch.data());
    return scratch.data();
  };
  auto run = [&](auto* typed_out) {
    ResampleFrames(in, n_in, channels, typed_out, out_frames, first_tap_, taps_, taps_of);
  };
  switch (out_type) {
    case DType::kFloat32: return run(static_cast<float*>(out));
    case DType::kInt8: return run(static_cast<int8_t*>(out));
    case DType::kUInt8: return run(static_cast<uint8_t*>(out));
    case DType::kInt16: return run(static_cast<int16_t*>(out));
    case DType::kUInt16: return run(static_cast<uint16_t*>(out));
    case DType::kInt32: return run(static_cast<int32_t*>(out));
    default: throw Error("resampling outputs float32, int8, uint8, int16, uint16 or int32, not " +
                         std::string(ToString(out_type)));
  }
}

}  // namespace sluice::kernels
