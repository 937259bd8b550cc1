#include "kernels/noise/noise.h"

#include <cmath>
#include <type_traits>

#include "core/dtype_list.h"
#include "kernels/tensor/cast.h"
#include "sluice/error.h"

namespace sluice::kernels {
namespace {

using NoiseDTypes = DTypeList<uint8_t, int8_t, uint16_t, int16_t, int32_t, float>;

}  // namespace

bool NoiseKernelSupports(DType t) { return NoiseDTypes::Contains(t); }

int64_t PoissonSample(double lambda, RandomGenerator& rng) {
  if (!(lambda > 0)) return 0;
  if (lambda < 10) {
    const double limit = std::exp(-lambda);
    int64_t k = 0;
    double prod = rng.Uniform01();
    while (prod > limit) {
      ++k;
      prod *= rng.Uniform01();
    }
    return k;
  }
  // W. Hormann, "The transformed rejection method for generating Poisson random variables" (1993).
  const double slam = std::sqrt(lambda), loglam = std::log(lambda);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = rng.Uniform01() - 0.5, v = rng.Uniform01();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return static_cast<int64_t>(k);
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -lambda + k * loglam - std::lgamma(k + 1))
      return static_cast<int64_t>(k);
  }
}

void GaussianNoise(const void* in, void* out, DType type, size_t n, double mean, double stddev, RandomGenerator& rng) {
  VisitDTypeIn<NoiseDTypes>(type, "noise kernels", [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    for (size_t i = 0; i < n; ++i)
      dst[i] = ConvertSaturate<T>(static_cast<double>(src[i]) + mean + stddev * rng.Normal());
  });
}

void ShotNoise(const void* in, void* out, DType type, size_t n, double factor, RandomGenerator& rng) {
  VisitDTypeIn<NoiseDTypes>(type, "noise kernels", [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    if (factor == 0) {
      for (size_t i = 0; i < n; ++i) dst[i] = src[i];
      return;
    }
    const double inv = 1.0 / factor;
    for (size_t i = 0; i < n; ++i) {
      const double lambda = std::max(0.0, static_cast<double>(src[i]) * inv);
      dst[i] = ConvertSaturate<T>(static_cast<double>(PoissonSample(lambda, rng)) * factor);
    }
  });
}

void SaltAndPepper(const void* in, void* out, DType type, const PixelGeom& g, const SaltAndPepperParams& p,
                   RandomGenerator& rng) {
  VisitDTypeIn<NoiseDTypes>(type, "noise kernels", [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(in);
    T* dst = static_cast<T*>(out);
    const T salt = ConvertSaturate<T>(p.salt), pepper = ConvertSaturate<T>(p.pepper);
    const double salt_prob = p.prob * p.salt_vs_pepper;
    auto pick = [&](double u, T v) { return u < p.prob ? (u < salt_prob ? salt : pepper) : v; };
    for (int64_t px = 0; px < g.pixels; ++px) {
      const int64_t base = px * g.pixel_stride;
      if (p.per_channel) {
        for (int64_t c = 0; c < g.channels; ++c) {
          const int64_t e = base + c * g.channel_stride;
          dst[e] = pick(rng.Uniform01(), src[e]);
        }
      } else {
        const double u = rng.Uniform01();
        for (int64_t c = 0; c < g.channels; ++c) {
          const int64_t e = base + c * g.channel_stride;
          dst[e] = pick(u, src[e]);
        }
      }
    }
  });
}

}  // namespace sluice::kernels
