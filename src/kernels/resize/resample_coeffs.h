// Per-axis resampling coefficient tables (internal to the resize kernel).
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/resize/resize.h"

namespace sluice::kernels::resize_detail {

// For each output index: taps [start, start + taps) of the source, weights normalized to sum 1.
// Every output has the same `taps` count: windows are shifted inside the image and zero-padded,
// so SIMD loops need no bounds checks.
struct AxisCoeffs {
  int out_size = 0;
  int taps = 0;
  int first = 0, last = 0;        // source range [first, last) used by any output
  std::vector<int32_t> start;     // out_size
  std::vector<double> weights;    // out_size * taps
  std::vector<int32_t> xmin, count;  // scratch (kept to avoid reallocation)
  std::vector<double> k;
};

// Which axis a table is for: NEAREST with ResizeParams::dali_nearest computes the width's positions
// by multiplication and the height's and depth's by accumulation, as DALI does.
enum class ResizeAxis : uint8_t { kWidth, kHeightOrDepth };

// Pillow's precompute_coeffs, extended with mirroring (roi1 < roi0) and filter selection.
// `identity` (in_size == out_size, whole-image ROI) yields a one-tap copy table.
void ComputeAxisCoeffs(int in_size, double roi0, double roi1, int out_size, const ResizeParams& p,
                       AxisCoeffs* c, ResizeAxis axis);

// Pillow's normalize_coeffs_8bpc: 22-bit fixed point, rounded away from zero.
constexpr int kPrecisionBits = 22;
inline int32_t ToFixed(double w) {
  return w < 0 ? int32_t(-0.5 + w * (1 << kPrecisionBits)) : int32_t(0.5 + w * (1 << kPrecisionBits));
}

// Nearest-neighbour source index for each output index (Pillow NEAREST).
void ComputeNearest(int in_size, double roi0, double roi1, int out_size, int32_t* idx);
// The same as DALI's CPU resampling (ResizeParams::dali_nearest): float32 positions, multiplied
// (the width) or accumulated (height, depth).
void ComputeNearestDali(int in_size, float roi0, float roi1, int out_size, ResizeAxis axis, int32_t* idx);

}  // namespace sluice::kernels::resize_detail
