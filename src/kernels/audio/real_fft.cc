#include "kernels/audio/real_fft.h"

#include <kiss_fft.h>
#include <kiss_fftr.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sluice::kernels {

static_assert(sizeof(kiss_fft_cpx) == sizeof(std::complex<float>), "kiss_fft_cpx must be two floats");

// The KISS FFT configuration: kiss_fftr's for even sizes, kiss_fft's for odd ones.
struct RealFft::Plan {
  kiss_fftr_cfg real = nullptr;
  kiss_fft_cfg complex = nullptr;
  ~Plan() {
    if (real) kiss_fftr_free(real);
    if (complex) kiss_fft_free(complex);
  }
};

RealFft::RealFft(int64_t n) : n_(n), plan_(std::make_unique<Plan>()) {
  if (n < 1 || n > (int64_t{1} << 30)) throw std::invalid_argument("RealFft: size " + std::to_string(n) + " out of range");
  if (n % 2 == 0) {
    plan_->real = kiss_fftr_alloc(static_cast<int>(n), 0, nullptr, nullptr);
  } else {
    plan_->complex = kiss_fft_alloc(static_cast<int>(n), 0, nullptr, nullptr);
    complex_in_.resize(static_cast<size_t>(n));
    complex_out_.resize(static_cast<size_t>(n));
  }
  if (!plan_->real && !plan_->complex) throw std::bad_alloc();
  frame_.assign(static_cast<size_t>(n), 0.0f);
  spectrum_.resize(static_cast<size_t>(num_bins()));
}

RealFft::~RealFft() = default;

void RealFft::Forward(const float* x, std::complex<float>* out) {
  if (plan_->real) {
    kiss_fftr(plan_->real, x, reinterpret_cast<kiss_fft_cpx*>(out));
    return;
  }
  for (int64_t t = 0; t < n_; ++t) complex_in_[static_cast<size_t>(t)] = {x[t], 0.0f};
  kiss_fft(plan_->complex, reinterpret_cast<const kiss_fft_cpx*>(complex_in_.data()),
           reinterpret_cast<kiss_fft_cpx*>(complex_out_.data()));
  std::memcpy(out, complex_out_.data(), static_cast<size_t>(num_bins()) * sizeof(std::complex<float>));
}

void RealFft::Spectrum(const float* x, int power, float* out, int64_t stride) {
  Forward(x, spectrum_.data());
  const int64_t bins = num_bins();
  const auto* re_im = reinterpret_cast<const float*>(spectrum_.data());
  if (power == 2) {
    for (int64_t k = 0; k < bins; ++k) out[k * stride] = re_im[2 * k] * re_im[2 * k] + re_im[2 * k + 1] * re_im[2 * k + 1];
  } else {
    for (int64_t k = 0; k < bins; ++k)
      out[k * stride] = std::sqrt(re_im[2 * k] * re_im[2 * k] + re_im[2 * k + 1] * re_im[2 * k + 1]);
  }
}

RealFft& RealFftCache::Get(int64_t n) {
  for (auto& p : plans_)
    if (p->size() == n) return *p;
  plans_.push_back(std::make_unique<RealFft>(n));
  return *plans_.back();
}

}  // namespace sluice::kernels
