// The discrete cosine transform, types I-IV (DALI's, as used by fn.mfcc; the formulas of
// https://en.wikipedia.org/wiki/Discrete_cosine_transform), along one axis, keeping the first ndct
// coefficients, with optional liftering.
//
// For an input x of n values and k in [0, ndct):
//   I:   X[k] = x[0] / 2 + (-1)^k x[n-1] / 2 + sum_{0<t<n-1} x[t] cos(pi k t / (n - 1))   (n >= 2)
//   II:  X[k] = sum_t x[t] cos(pi (t + 1/2) k / n)
//   III: X[k] = x[0] / 2 + sum_{t>0} x[t] cos(pi t (k + 1/2) / n)
//   IV:  X[k] = sum_t x[t] cos(pi (t + 1/2) (k + 1/2) / n)
// With normalize (ortho, types II-IV; SciPy's norm="ortho"): II scales X[0] by 1/sqrt(n) and the
// others by sqrt(2/n); III replaces the 1/2 of x[0] by 1/sqrt(n) and scales the other terms by
// sqrt(2/n); IV scales everything by sqrt(2/n). (Unnormalized II and III are SciPy's halved.)
// Liftering multiplies X[k] by 1 + (lifter / 2) sin(pi (k + 1) / lifter) (DALI's and librosa's).
// The cosine table is computed in double and stored in float; the sums are float32, in increasing
// t, products and sums rounded separately.
// Thread-safety: a DctTable is immutable after construction; Dct is reentrant, no allocation.
#pragma once
#include <cstdint>
#include <vector>

namespace sluice::kernels {

class DctTable {
 public:
  // type in [1, 4]; n >= 1 (>= 2 for type I); 1 <= ndct <= n; normalize not with type I.
  DctTable(int type, bool normalize, int64_t n, int64_t ndct);
  int64_t n() const { return n_; }
  int64_t ndct() const { return ndct_; }
  // Row k: the n factors of X[k].
  const float* row(int64_t k) const { return table_.data() + k * n_; }

 private:
  int64_t n_, ndct_;
  std::vector<float> table_;
};

// The liftering factors of coefficients [0, count): 1 + (lifter / 2) sin(pi (k + 1) / lifter),
// in float as DALI (lifter != 0).
std::vector<float> LifterFactors(float lifter, int64_t count);

// in: (outer, n, inner) floats; out: (outer, ndct, inner) floats, no overlap. lifter: ndct
// factors, or nullptr for none.
void Dct(const float* in, int64_t outer, int64_t inner, const DctTable& table, const float* lifter, float* out);

}  // namespace sluice::kernels
