#include "kernels/audio/real_fft.h"

// The executor owns the threads, and each thread keeps its plans (RealFftCache): PocketFFT's
// worker pool and its global plan cache (a mutex) are compiled out.
#define POCKETFFT_NO_MULTITHREADING
#define POCKETFFT_CACHE_SIZE 0
#include <pocketfft_hdronly.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace sluice::kernels {

namespace {

// Four frames per transform, one per lane of a 16-byte vector (SSE2, NEON; GCC and Clang vector
// extensions, which PocketFFT's templates take as their value type).
constexpr int kLanes = 4;
typedef float Lanes __attribute__((vector_size(kLanes * sizeof(float))));

// |X[k]|^power from PocketFFT's half-complex order: r0, r1, i1, r2, i2, ..., and for even n the
// last real value r_{n/2}. Value is float (one frame) or Lanes (one frame per lane).
template <typename Value, typename Store>
void HalfComplexSpectrum(const Value* c, int64_t n, int power, Store store) {
  const int64_t bins = n / 2 + 1;
  const auto emit = [&](int64_t k, Value re, Value im) {
    Value p = re * re + im * im;
    if (power != 2) {
      if constexpr (std::is_same_v<Value, float>) {
        p = std::sqrt(p);
      } else {
        for (int j = 0; j < kLanes; ++j) p[j] = std::sqrt(p[j]);
      }
    }
    store(k, p);
  };
  const Value zero{};
  emit(0, c[0], zero);
  for (int64_t k = 1; k < bins; ++k) {
    if (2 * k - 1 == n - 1)  // even n: the Nyquist bin is real
      emit(k, c[n - 1], zero);
    else
      emit(k, c[2 * k - 1], c[2 * k]);
  }
}

}  // namespace

struct RealFft::Plan {
  explicit Plan(size_t n) : r(n) {}
  pocketfft::detail::pocketfft_r<float> r;
};

RealFft::RealFft(int64_t n) : n_(n) {
  if (n < 1 || n > (int64_t{1} << 30)) throw std::invalid_argument("RealFft: size " + std::to_string(n) + " out of range");
  plan_ = std::make_unique<Plan>(static_cast<size_t>(n));
  frame_.assign(static_cast<size_t>(n), 0.0f);
  work_.assign(static_cast<size_t>(n), 0.0f);
  lanes_.assign(static_cast<size_t>(n) * kLanes, 0.0f);
  // std::allocator<float> gives at least alignof(std::max_align_t) = 16 bytes on the targets we
  // build for; Lanes needs 16.
  if (reinterpret_cast<uintptr_t>(lanes_.data()) % alignof(Lanes) != 0)
    throw std::runtime_error("RealFft: the lanes buffer is not aligned for the vector type");
}

RealFft::~RealFft() = default;

int RealFft::lane_count() { return kLanes; }

void RealFft::TransformWork() { plan_->r.exec(work_.data(), 1.0f, /*fwd=*/true); }

void RealFft::Forward(const float* x, std::complex<float>* out) {
  std::memcpy(work_.data(), x, static_cast<size_t>(n_) * sizeof(float));
  TransformWork();
  const float* c = work_.data();
  out[0] = {c[0], 0.0f};
  for (int64_t k = 1; k < num_bins(); ++k)
    out[k] = 2 * k - 1 == n_ - 1 ? std::complex<float>(c[n_ - 1], 0.0f) : std::complex<float>(c[2 * k - 1], c[2 * k]);
}

void RealFft::Spectrum(const float* x, int power, float* out, int64_t stride) {
  std::memcpy(work_.data(), x, static_cast<size_t>(n_) * sizeof(float));
  TransformWork();
  HalfComplexSpectrum(work_.data(), n_, power, [&](int64_t k, float p) { out[k * stride] = p; });
}

void RealFft::SpectrumOfLanes(int frames, int power, float* out, int64_t bin_stride, int64_t frame_stride) {
  Lanes* c = reinterpret_cast<Lanes*>(lanes_.data());
  plan_->r.exec(c, 1.0f, /*fwd=*/true);
  HalfComplexSpectrum(c, n_, power, [&](int64_t k, Lanes p) {
    for (int j = 0; j < frames; ++j) out[j * frame_stride + k * bin_stride] = p[j];
  });
}

RealFft& RealFftCache::Get(int64_t n) {
  for (auto& p : plans_)
    if (p->size() == n) return *p;
  plans_.push_back(std::make_unique<RealFft>(n));
  return *plans_.back();
}

}  // namespace sluice::kernels
