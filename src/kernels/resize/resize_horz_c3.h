// Internal: the horizontal pass for uint8 RGB in fixed point, one 128-bit block per output pixel
// (resize_hwy.cc's HorzU8C3Impl). Its inputs are derived once per image from the generic pass's
// HorzArgs (HorzC3Table): each output pixel's first source pixel and its weights, split into int16
// halves so a multiply-add-pairs instruction can take them, laid out in the order the kernel loads.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/resize/resize_hwy.h"

namespace sluice::kernels::resize_detail {

inline constexpr int kC3MaxTaps = 16;  // 4 windows of 4 taps
inline constexpr int kC3LowBits = 11;  // weight = (high << 11) + low, low in [0, 2^11)

// The two output pixels (of a group of 8) in the two 128-bit blocks of accumulator i: chosen so
// that two per-block int32 -> int16 packs leave pixels 0-3 and 4-7 in order.
inline constexpr int kC3Lanes[4][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}};

struct HorzC3Args {
  const uint8_t* in;
  size_t in_pitch;
  int rows;
  const int32_t* start;    // out_w: first source pixel of each output pixel
  const int16_t* table;    // groups * 4 * windows * 64: per accumulator and window, the weight
                           // vectors (low, high) of taps (0, 1) then (2, 3), 16 lanes each
  const uint8_t* group_ok; // groups: every window load of the group stays inside the source row
  int windows, groups, out_w;
  // The generic pass's arguments, for the pixels the vectors do not take.
  const int32_t* offs;
  const int32_t* coef;
  int taps, out_elems;
  uint8_t* out;
  size_t out_pitch;
  const uint8_t* row_mask;  // as HorzArgs
};

struct HorzC3Scratch {
  std::vector<int32_t> start;
  std::vector<int16_t> table;
  std::vector<uint8_t> group_ok;
};

// Builds the table (into scratch) for the generic pass's arguments; requires channels == 3 and
// taps <= kC3MaxTaps.
HorzC3Args HorzC3Table(const HorzArgs<uint8_t, int32_t, uint8_t>& a, HorzC3Scratch& scratch);

// Output pixels [x_begin, x_end) of one row, as the generic pass computes them.
inline void HorzC3Scalar(const HorzC3Args& a, const uint8_t* src, uint8_t* dst, int x_begin, int x_end) {
  const size_t ne = size_t(a.out_elems);
  for (size_t j = size_t(x_begin) * 3; j < size_t(x_end) * 3; ++j) {
    int32_t acc = 1 << (kFixedBits - 1);
    for (int k = 0; k < a.taps; ++k) acc += int32_t(src[a.offs[j] + 3 * k]) * a.coef[size_t(k) * ne + j];
    const int32_t v = acc >> kFixedBits;
    dst[j] = uint8_t(std::clamp(v, 0, 255));
  }
}

}  // namespace sluice::kernels::resize_detail
