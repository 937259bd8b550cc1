#include "kernels/audio/dct.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace sluice::kernels {

DctTable::DctTable(int type, bool normalize, int64_t n, int64_t ndct)
    : n_(n), ndct_(ndct), table_(static_cast<size_t>(n * ndct)) {
  constexpr double pi = std::numbers::pi;
  const double dn = static_cast<double>(n);
  const double ortho_first = 1.0 / std::sqrt(dn), ortho_rest = std::sqrt(2.0 / dn);
  for (int64_t k = 0; k < ndct; ++k) {
    const double dk = static_cast<double>(k);
    float* r = table_.data() + k * n;
    for (int64_t t = 0; t < n; ++t) {
      const double dt = static_cast<double>(t);
      double v = 0.0;
      switch (type) {
        case 1:
          v = t == 0 ? 0.5 : t == n - 1 ? (k % 2 == 0 ? 0.5 : -0.5) : std::cos(pi * dk * dt / (dn - 1.0));
          break;
        case 2:
          v = std::cos(pi * (dt + 0.5) * dk / dn);
          if (normalize) v *= k == 0 ? ortho_first : ortho_rest;
          break;
        case 3:
          v = t == 0 ? (normalize ? ortho_first : 0.5) : std::cos(pi * dt * (dk + 0.5) / dn) * (normalize ? ortho_rest : 1.0);
          break;
        default:
          v = std::cos(pi * (dt + 0.5) * (dk + 0.5) / dn) * (normalize ? ortho_rest : 1.0);
          break;
      }
      r[t] = static_cast<float>(v);
    }
  }
}

std::vector<float> LifterFactors(float lifter, int64_t count) {
  std::vector<float> f(static_cast<size_t>(count));
  const float amplitude = lifter / 2.0f;
  const float phase = std::numbers::pi_v<float> / lifter;
  for (int64_t k = 0; k < count; ++k) f[static_cast<size_t>(k)] = 1.0f + amplitude * std::sin(phase * static_cast<float>(k + 1));
  return f;
}

namespace {

// Inputs [o, o + kBlock) of a time-major input (inner == 1): each X[k] summed in t order (the bits
// of the inner > 1 path), kBlock of them at once so that their additions overlap.
constexpr int64_t kBlock = 8;

void DctTimeMajorBlock(const float* x, const DctTable& table, const float* lifter, float* y) {
  const int64_t n = table.n(), ndct = table.ndct();
  for (int64_t k = 0; k < ndct; ++k) {
    const float* c = table.row(k);
    float acc[kBlock] = {};
    for (int64_t t = 0; t < n; ++t)
      for (int64_t b = 0; b < kBlock; ++b) acc[b] += c[t] * x[b * n + t];
    for (int64_t b = 0; b < kBlock; ++b) y[b * ndct + k] = lifter ? acc[b] * lifter[k] : acc[b];
  }
}

}  // namespace

void Dct(const float* in, int64_t outer, int64_t inner, const DctTable& table, const float* lifter, float* out) {
  const int64_t n = table.n(), ndct = table.ndct();
  int64_t o = 0;
  if (inner == 1)
    for (; o + kBlock <= outer; o += kBlock) DctTimeMajorBlock(in + o * n, table, lifter, out + o * ndct);
  for (; o < outer; ++o) {
    const float* x = in + o * n * inner;
    float* y = out + o * ndct * inner;
    for (int64_t k = 0; k < ndct; ++k) {
      const float* c = table.row(k);
      float* yk = y + k * inner;
      if (inner == 1) {
        float acc = 0.0f;
        for (int64_t t = 0; t < n; ++t) acc += c[t] * x[t];
        yk[0] = acc;
      } else {  // rows of `inner` values: weighted rows added in t order
        std::fill(yk, yk + inner, 0.0f);
        for (int64_t t = 0; t < n; ++t) {
          const float ct = c[t];
          const float* xt = x + t * inner;
          for (int64_t j = 0; j < inner; ++j) yk[j] += ct * xt[j];
        }
      }
      if (lifter)
        for (int64_t j = 0; j < inner; ++j) yk[j] *= lifter[k];
    }
  }
}

}  // namespace sluice::kernels
