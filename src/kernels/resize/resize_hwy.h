// Internal: SIMD passes of the resize kernel (implemented in resize_hwy.cc with Highway).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sluice::kernels::resize_detail {

constexpr int kFixedBits = 22;  // Pillow's PRECISION_BITS for 8-bit images

// Horizontal pass over `rows` rows. `row` is scratch for one widened source row (in_elems lanes).
template <typename TIn, typename TAcc, typename TOut>
struct HorzArgs {
  const TIn* in;
  size_t in_pitch;   // elements
  int in_elems;      // in_w * channels
  int rows;
  const int32_t* offs;  // out_elems: first source element of each output element
  const TAcc* coef;     // taps * out_elems, tap-major
  int taps, channels, out_elems;
  TOut* out;
  size_t out_pitch;  // elements
  TAcc* row;
  const uint8_t* row_mask = nullptr;  // rows entries: compute only rows with a non-zero entry (null: all)
};

// Vertical pass: output row y = sum_k coef[y*taps + k] * in row (start[y] + k).
template <typename TIn, typename TAcc, typename TOut>
struct VertArgs {
  const TIn* in;
  size_t in_pitch;
  int elems;  // out_w * channels
  const int32_t* start;
  const TAcc* coef;
  int taps, out_rows;
  TOut* out;
  size_t out_pitch;
};

void Horz(const HorzArgs<uint8_t, int32_t, uint8_t>& a);
void Horz(const HorzArgs<uint8_t, float, float>& a);
void Horz(const HorzArgs<float, float, float>& a);
void Horz(const HorzArgs<int16_t, float, float>& a);
void Horz(const HorzArgs<uint16_t, float, float>& a);
void Vert(const VertArgs<uint8_t, int32_t, uint8_t>& a);
void Vert(const VertArgs<float, float, float>& a);
void Vert(const VertArgs<float, float, uint8_t>& a);
// 16-bit outputs round half away from zero and saturate (DALI's ConvertSat on the CPU).
void Vert(const VertArgs<float, float, int16_t>& a);
void Vert(const VertArgs<float, float, uint16_t>& a);

}  // namespace sluice::kernels::resize_detail
