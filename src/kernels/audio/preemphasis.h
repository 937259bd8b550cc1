// The preemphasis filter (DALI's preemphasis_filter), a first-order high-pass on one signal:
//   out[t] = in[t] - coeff * in[t - 1]          for t >= 1
//   out[0] = in[0] - coeff * border             border: 0 (zero), in[0] (clamp), in[1] (reflect)
// computed in float32 (float64 for float64 input: C++'s promotion of `in - coeff * in`, as DALI
// computes it), the result converted to the output type with cast's rules (integers round to
// nearest even and saturate). zero border leaves out[0] = in[0] exactly; coeff 0 is a conversion
// of every element (no 0 * inf). A one-element signal reflects onto itself (in[0]).
// Thread-safety: reentrant, no allocation. in and out hold n elements of their types and do not
// overlap.
#pragma once
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels {

enum class PreemphasisBorder { kZero, kClamp, kReflect };

void PreemphasisFilter(const void* in, DType in_type, void* out, DType out_type, int64_t n, float coeff,
                       PreemphasisBorder border);

// The element out[0] subtracts `coeff` times (the border rule above), as an index into the signal;
// -1 for the zero border. Shared with the GPU kernel so both read the same element.
inline int64_t PreemphasisBorderIndex(PreemphasisBorder border, int64_t n) {
  if (border == PreemphasisBorder::kZero) return -1;
  return border == PreemphasisBorder::kReflect && n > 1 ? 1 : 0;
}

}  // namespace sluice::kernels
