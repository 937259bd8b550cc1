// The kernels of DALI's normalize: statistics over a subset of axes and the normalization
//   out = (in - mean) * scale / sqrt(var + epsilon) + shift
// where mean and var ("parameters") have the input's shape with the reduced axes set to 1 and are
// broadcast over those axes. Operators compute the parameters with AccumulateSum /
// AccumulateSquaredDeviation (several samples may add into the same accumulators: statistics over
// a batch) and apply them with NormalizeApply.
// Inputs: uint8, int8, uint16, int16, int32, float32; outputs: float32 or those integer types
// (rounded to nearest and saturated, as kernels::Cast). Computation in float32 (applying) and
// double (statistics). Thread-safety: reentrant, allocates nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

// A sample's shape and the set of reduced axes (bit d: axis d).
struct NormalizeGeometry {
  std::vector<int64_t> dims;
  uint32_t reduced = 0;
  // The parameters' shape: dims with the reduced axes set to 1.
  std::vector<int64_t> ParamShape() const;
  int64_t ParamVolume() const;
  // The number of elements reduced into each parameter.
  int64_t GroupSize() const;
};

bool NormalizeSupportsInput(DType t);
bool NormalizeSupportsOutput(DType t);

// sums[p] += sum of the elements of group p (sums has ParamVolume() entries).
void AccumulateSum(const void* in, DType type, const NormalizeGeometry& g, double* sums);
// acc[p] += sum of (x - mean[p])^2 over group p.
void AccumulateSquaredDeviation(const void* in, DType type, const NormalizeGeometry& g, const double* mean,
                                double* acc);
// out = (in - mean[p]) * mul[p] + shift, converted to out_type.
void NormalizeApply(const void* in, DType in_type, void* out, DType out_type, const NormalizeGeometry& g,
                    const float* mean, const float* mul, float shift);

// DALI's multiplier: scale / sqrt(var + epsilon), 0 where var + epsilon is 0 (a constant group
// maps to `shift`, no division by zero).
float NormalizeMultiplier(double var, double epsilon, double scale);

}  // namespace sluice::kernels
