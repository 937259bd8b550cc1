// The per-thread scratch of the resize kernels (whole-image and windowed): one set per thread, so
// ReleaseResizeScratch frees what both used. Vectors are re-assigned, never shrunk, so steady
// state does not allocate.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/resize/resample_coeffs.h"

namespace sluice::kernels::resize_detail {

struct ResizeScratch {
  AxisCoeffs cx, cy;
  std::vector<int32_t> offs, ystart, xcoef_i, ycoef_i, row_i;
  std::vector<float> xcoef_f, ycoef_f, row_f, mid_f;
  std::vector<uint8_t> mid_u8;
  std::vector<uint8_t> row_read;  // ReadRowMask
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

// The scratch vectors of one arithmetic: fixed point (int32 weights, uint8 rows between the passes)
// for uint8 -> uint8, float otherwise; Weight converts a filter weight to it.
template <bool kFixed>
struct TypedScratch {
  using TAcc = std::conditional_t<kFixed, int32_t, float>;
  using TMid = std::conditional_t<kFixed, uint8_t, float>;
  std::vector<TAcc>& xcoef;
  std::vector<TAcc>& ycoef;
  std::vector<TAcc>& row;
  std::vector<TMid>& mid;

  explicit TypedScratch(ResizeScratch& s)
      : xcoef(Pick(s.xcoef_i, s.xcoef_f)), ycoef(Pick(s.ycoef_i, s.ycoef_f)), row(Pick(s.row_i, s.row_f)),
        mid(Pick(s.mid_u8, s.mid_f)) {}

  static TAcc Weight(double w) {
    if constexpr (kFixed) return ToFixed(w);
    else return float(w);
  }

 private:
  template <typename A, typename B>
  static auto& Pick(A& fixed, B& floating) {
    if constexpr (kFixed) return fixed;
    else return floating;
  }
};

}  // namespace sluice::kernels::resize_detail
