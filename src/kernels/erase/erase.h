// Erasing regions of a tensor (DALI `erase`, dali/kernels/erase/erase_cpu.h): every element inside
// the box [lo, hi) (per dimension, clipped to the tensor) takes the fill value; with a channel axis
// and one fill value per channel, channel c takes fill[c]. The caller copies the input first
// (EraseBox works in place), then erases each region.
// Element types: any DType (the fill values are converted with saturation, as kernels::Cast).
// Thread-safety: reentrant, no allocation.
#pragma once
#include <cstdint>
#include <vector>

#include "sluice/dtype.h"

namespace sluice::kernels {

// `shape`: the tensor's dims (row-major, contiguous); lo/hi: one per dim; channel_axis: -1 or the
// axis that fill indexes when fill has more than one value.
void EraseBox(void* data, DType type, const std::vector<int64_t>& shape, std::vector<int64_t> lo,
              std::vector<int64_t> hi, const std::vector<double>& fill, int channel_axis);

}  // namespace sluice::kernels
