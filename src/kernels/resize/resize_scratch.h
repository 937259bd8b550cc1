// The per-thread scratch of the resize kernels (whole-image and windowed): one set per thread, so
// ReleaseResizeScratch frees what both used. Vectors are re-assigned, never shrunk, so steady
// state does not allocate.
#pragma once
#include <cstdint>
#include <vector>

#include "kernels/resize/resample_coeffs.h"

namespace sluice::kernels::resize_detail {

struct ResizeScratch {
  AxisCoeffs cx, cy;
  std::vector<int32_t> offs, ystart, xcoef_i, ycoef_i, row_i;
  std::vector<float> xcoef_f, ycoef_f, row_f, mid_f;
  std::vector<uint8_t> mid_u8;
};

inline ResizeScratch& GetScratch() {
  thread_local ResizeScratch s;
  return s;
}

// v's storage with room for at least n elements (never shrinks).
template <typename T>
T* Grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

}  // namespace sluice::kernels::resize_detail
