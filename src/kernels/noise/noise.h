// DALI's noise.* point-wise noise (dali/operators/random/noise/*.h), drawn from a caller-owned
// random stream so an operator can give every sample its own stream:
//   - GaussianNoise:    out = ConvertSat(in + N(mean, stddev));
//   - ShotNoise:        out = ConvertSat(Poisson(max(0, in / factor)) * factor); factor 0: out = in;
//   - SaltAndPepper:    with probability prob a value becomes salt (probability prob * salt_vs_pepper)
//                       or pepper (the rest), else stays; per pixel (all channels alike) or per element.
// ConvertSat: integers round to nearest and saturate (NaN -> 0), floats as computed.
// Element types: uint8, int8, uint16, int16, int32, float32 (NoiseKernelSupports).
// Thread-safety: reentrant; the generator is the caller's. in and out may be the same buffer.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/random.h"
#include "sluice/dtype.h"

namespace sluice::kernels {

bool NoiseKernelSupports(DType t);

void GaussianNoise(const void* in, void* out, DType type, size_t n, double mean, double stddev, RandomGenerator& rng);

void ShotNoise(const void* in, void* out, DType type, size_t n, double factor, RandomGenerator& rng);

// Elements of pixel p, channel c at p * pixel_stride + c * channel_stride (HWC: C, 1; CHW: 1, H*W).
struct PixelGeom {
  int64_t pixels = 0, channels = 1, pixel_stride = 1, channel_stride = 1;
};
struct SaltAndPepperParams {
  double prob = 0.05, salt_vs_pepper = 0.5;
  double salt = 1, pepper = -1;  // converted to the type with saturation
  bool per_channel = false;
};
void SaltAndPepper(const void* in, void* out, DType type, const PixelGeom& g, const SaltAndPepperParams& p,
                   RandomGenerator& rng);

// A Poisson(lambda) variate (lambda >= 0): multiplication method below 10, Hormann's PTRS above.
int64_t PoissonSample(double lambda, RandomGenerator& rng);

}  // namespace sluice::kernels
