// Deterministic random streams. The pipeline seed derives a seed per operator, and each operator
// derives an independent stream per (iteration, sample), so results do not depend on which thread
// processes which sample.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sluice {

// SplitMix64 finalizer: a bijective mix with good avalanche.
constexpr uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr uint64_t DeriveSeed(uint64_t base, uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  return Mix64(Mix64(Mix64(base ^ Mix64(a)) ^ Mix64(b + 0x632be59bd9b4e019ull)) ^ Mix64(c + 0x8cb92ba72f3d8dd7ull));
}

// xoshiro256** generator; a UniformRandomBitGenerator, so it works with <random> distributions,
// but the helpers below are used by Sluice's operators so results are identical across standard
// libraries.
class RandomGenerator {
 public:
  using result_type = uint64_t;
  explicit RandomGenerator(uint64_t seed) {
    uint64_t x = seed;
    for (auto& w : s_) { x = Mix64(x); w = x; }
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform01(); }
  // Uniform integer in [lo, hi] (inclusive), unbiased.
  int64_t UniformInt(int64_t lo, int64_t hi) {
    const uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    if (range == 0) return static_cast<int64_t>((*this)());
    const uint64_t limit = max() - max() % range;
    uint64_t v;
    do { v = (*this)(); } while (v >= limit);
    return lo + static_cast<int64_t>(v % range);
  }
  bool Bernoulli(double p) { return Uniform01() < p; }
  // Standard normal via Box-Muller (one value per call; deterministic).
  // Gamma(shape, 1) by Marsaglia and Tsang's method; shape < 1 through Gamma(shape + 1) * U^(1/shape).
  double Gamma(double shape) {
    if (shape < 1.0) {
      const double u = std::max(Uniform01(), 1e-300);
      return Gamma(shape + 1.0) * std::pow(u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      double x, v;
      do {
        x = Normal();
        v = 1.0 + c * x;
      } while (v <= 0.0);
      v = v * v * v;
      const double u = Uniform01();
      if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
      if (std::log(std::max(u, 1e-300)) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
    }
  }
  // Beta(a, b) = X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
  double Beta(double a, double b) {
    const double x = Gamma(a), y = Gamma(b);
    return x + y > 0 ? x / (x + y) : (Uniform01() < a / (a + b) ? 1.0 : 0.0);
  }

  double Normal() {
    double u1 = Uniform01();
    double u2 = Uniform01();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace sluice
