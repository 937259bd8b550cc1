// The mel filter bank (DALI's fn.mel_filter_bank, librosa.filters.mel): triangular filters,
// equally spaced on the mel scale, applied to a spectrum.
//
// Mel scales (`MelFormula`): kHtk, m = 2595 * log10(1 + f / 700); kSlaney (Slaney's Auditory
// Toolbox, librosa's default), m = 3 * f / 200 below 1000 Hz and 15 + 27 * ln(f / 1000) / ln(6.4)
// above.
// Filters: with nfilter + 2 points p[i] = mel_to_hz(mel(freq_low) + i * d), d = (mel(freq_high) -
// mel(freq_low)) / (nfilter + 1), and bin k's frequency f_k = k * sample_rate / nfft (k in
// [0, nfft / 2]), filter m's weight of bin k is
//   max(0, min((f_k - p[m]) / (p[m+1] - p[m]), (p[m+2] - f_k) / (p[m+2] - p[m+1])))
// times 2 / (p[m+2] - p[m]) when normalized (Slaney's: each filter's area is 1; otherwise each
// peaks at 1). Computed in double, stored in float (as librosa's float32 basis); a filter that
// covers no bin is all zeros.
// Applying it: the spectrum is viewed as (outer, nfft/2+1, inner), the frequency axis in the
// middle, and
//   out[o, m, j] = sum over the bins k of filter m's band, in increasing k, of weight(m, k) * in[o, k, j]
// in float32, the products and the sums rounded separately (so "ft" and "tf" data give the same
// bits). The filters are kept as a band matrix (each one's nonzero run of bins), not a dense one.
// Thread-safety: a MelFilterBank is immutable after construction; Apply is reentrant and
// allocates nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace sluice::kernels {

enum class MelFormula { kSlaney, kHtk };

double HzToMel(double hz, MelFormula formula);
double MelToHz(double mel, MelFormula formula);

struct MelFilterBankArgs {
  int64_t nfilter = 128;  // >= 1
  int64_t nfft = 0;       // >= 1: the spectrum has nfft/2+1 bins
  double sample_rate = 44100.0;
  double freq_low = 0.0;   // 0 <= freq_low < freq_high
  double freq_high = 0.0;  // <= sample_rate / 2
  MelFormula formula = MelFormula::kSlaney;
  bool normalize = true;
};

class MelFilterBank {
 public:
  explicit MelFilterBank(const MelFilterBankArgs& args);

  int64_t nfilter() const { return static_cast<int64_t>(first_bin_.size()); }
  int64_t num_bins() const { return num_bins_; }
  // Filter m's band: bins [first_bin(m), first_bin(m) + band_size(m)), their weights in order.
  int64_t first_bin(int64_t m) const { return first_bin_[static_cast<size_t>(m)]; }
  int64_t band_size(int64_t m) const { return band_size_[static_cast<size_t>(m)]; }
  const float* band_weights(int64_t m) const { return weights_.data() + band_offset_[static_cast<size_t>(m)]; }
  // Filter m's weight of bin k (0 outside its band).
  float Weight(int64_t m, int64_t k) const;

  // in: outer * num_bins() * inner floats; out: outer * nfilter() * inner floats; no overlap.
  void Apply(const float* in, int64_t outer, int64_t inner, float* out) const;

 private:
  // Time-major input (inner == 1): 8 spectra at once (see the .cc).
  void ApplyTimeMajorBlock(const float* in, float* out) const;

  int64_t num_bins_ = 0;
  std::vector<int64_t> first_bin_, band_size_, band_offset_;
  std::vector<float> weights_;  // the bands, one after the other
};

}  // namespace sluice::kernels
