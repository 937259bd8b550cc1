#include "kernels/audio/mel_filter_bank.h"

#include <algorithm>
#include <cmath>

namespace sluice::kernels {

namespace {
constexpr double kSlaneyHzPerMel = 200.0 / 3.0;  // linear part
constexpr double kSlaneyLogHz = 1000.0;          // where the log part begins
constexpr double kSlaneyLogMel = kSlaneyLogHz / kSlaneyHzPerMel;
const double kSlaneyLogStep = std::log(6.4) / 27.0;
}  // namespace

double HzToMel(double hz, MelFormula formula) {
  if (formula == MelFormula::kHtk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz < kSlaneyLogHz) return hz / kSlaneyHzPerMel;
  return kSlaneyLogMel + std::log(hz / kSlaneyLogHz) / kSlaneyLogStep;
}

double MelToHz(double mel, MelFormula formula) {
  if (formula == MelFormula::kHtk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel < kSlaneyLogMel) return mel * kSlaneyHzPerMel;
  return kSlaneyLogHz * std::exp(kSlaneyLogStep * (mel - kSlaneyLogMel));
}

MelFilterBank::MelFilterBank(const MelFilterBankArgs& args) : num_bins_(args.nfft / 2 + 1) {
  const int64_t nf = args.nfilter;
  const double mel_low = HzToMel(args.freq_low, args.formula);
  const double mel_high = HzToMel(args.freq_high, args.formula);
  const double mel_step = (mel_high - mel_low) / static_cast<double>(nf + 1);
  std::vector<double> p(static_cast<size_t>(nf + 2));
  for (int64_t i = 0; i <= nf + 1; ++i)
    p[static_cast<size_t>(i)] = MelToHz(i == nf + 1 ? mel_high : mel_low + static_cast<double>(i) * mel_step, args.formula);
  const double hz_per_bin = args.sample_rate / static_cast<double>(args.nfft);

  first_bin_.resize(static_cast<size_t>(nf));
  band_size_.resize(static_cast<size_t>(nf));
  band_offset_.resize(static_cast<size_t>(nf));
  std::vector<float> band;
  for (int64_t m = 0; m < nf; ++m) {
    const double left = p[static_cast<size_t>(m)], mid = p[static_cast<size_t>(m + 1)], right = p[static_cast<size_t>(m + 2)];
    const double scale = args.normalize ? 2.0 / (right - left) : 1.0;
    band.clear();
    int64_t first = 0;
    for (int64_t k = 0; k < num_bins_; ++k) {
      const double f = static_cast<double>(k) * hz_per_bin;
      const double w = std::max(0.0, std::min((f - left) / (mid - left), (right - f) / (right - mid)));
      if (w > 0.0) {
        if (band.empty()) first = k;
        band.resize(static_cast<size_t>(k - first + 1), 0.0f);  // keeps the zeros inside a band
        band.back() = static_cast<float>(w * scale);
      }
    }
    first_bin_[static_cast<size_t>(m)] = first;
    band_size_[static_cast<size_t>(m)] = static_cast<int64_t>(band.size());
    band_offset_[static_cast<size_t>(m)] = static_cast<int64_t>(weights_.size());
    weights_.insert(weights_.end(), band.begin(), band.end());
  }
}

float MelFilterBank::Weight(int64_t m, int64_t k) const {
  const int64_t j = k - first_bin(m);
  return j >= 0 && j < band_size(m) ? band_weights(m)[j] : 0.0f;
}

namespace {

// Spectra [o, o + kBlock) of a time-major input: filter m's dot products for the block's spectra,
// each summed in bin order (the bits of the frequency-major path), kBlock of them at once so that
// the additions of different spectra overlap instead of waiting for each other.
constexpr int64_t kBlock = 8;

}  // namespace

void MelFilterBank::ApplyTimeMajorBlock(const float* in, float* out) const {
  const int64_t nf = nfilter();
  for (int64_t m = 0; m < nf; ++m) {
    const float* w = band_weights(m);
    const float* x = in + first_bin(m);
    float acc[kBlock] = {};
    for (int64_t j = 0; j < band_size(m); ++j)
      for (int64_t b = 0; b < kBlock; ++b) acc[b] += w[j] * x[b * num_bins_ + j];
    for (int64_t b = 0; b < kBlock; ++b) out[b * nf + m] = acc[b];
  }
}

void MelFilterBank::Apply(const float* in, int64_t outer, int64_t inner, float* out) const {
  const int64_t nf = nfilter();
  int64_t o = 0;
  if (inner == 1)
    for (; o + kBlock <= outer; o += kBlock) ApplyTimeMajorBlock(in + o * num_bins_, out + o * nf);
  for (; o < outer; ++o) {
    const float* spectrum = in + o * num_bins_ * inner;
    float* mel = out + o * nf * inner;
    for (int64_t m = 0; m < nf; ++m) {
      const float* w = band_weights(m);
      const int64_t size = band_size(m);
      const float* rows = spectrum + first_bin(m) * inner;
      if (inner == 1) {  // time-major or a single spectrum: a dot product over the band
        float acc = 0.0f;
        for (int64_t j = 0; j < size; ++j) acc += w[j] * rows[j];
        mel[m] = acc;
        continue;
      }
      float* row = mel + m * inner;  // frequency-major: weighted rows added in bin order
      std::fill(row, row + inner, 0.0f);
      for (int64_t j = 0; j < size; ++j) {
        const float wj = w[j];
        const float* x = rows + j * inner;
        for (int64_t t = 0; t < inner; ++t) row[t] += wj * x[t];
      }
    }
  }
}

}  // namespace sluice::kernels
