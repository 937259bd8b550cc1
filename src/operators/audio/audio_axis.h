// Shared by the audio operators that work along one axis of a tensor (power_spectrum,
// mel_filter_bank, mfcc): the tensor seen as (outer, extent, inner) around that axis, which is
// how their kernels take it, and the error for a sample the operator cannot take.
#pragma once
#include <sluice/error.h>
#include <sluice/tensor_shape.h>

#include <cstdint>
#include <string>

namespace sluice {

struct AxisSplit {
  int64_t outer = 1;   // the product of the extents before the axis
  int64_t extent = 0;  // the axis's
  int64_t inner = 1;   // the product of the extents after it
};

inline AxisSplit SplitAtAxis(const TensorShape& shape, int axis) {
  AxisSplit s;
  for (int d = 0; d < shape.ndim(); ++d) {
    if (d < axis) s.outer *= shape[d];
    if (d > axis) s.inner *= shape[d];
  }
  s.extent = shape[axis];
  return s;
}

// The shape with the axis's extent replaced.
inline TensorShape WithExtent(TensorShape shape, int axis, int64_t extent) {
  shape[axis] = extent;
  return shape;
}

// An error about sample `sample` of the batch (the node runner adds the operator).
[[noreturn]] inline void ThrowSampleError(int sample, const std::string& message) {
  Error::Context c;
  c.sample = sample;
  throw Error(message, c);
}

}  // namespace sluice
