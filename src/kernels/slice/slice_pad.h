// N-D slice with padding, the kernel behind slice, pad and paste (DALI's SliceCPU semantics):
//   out[i_0, ..., i_{n-1}] = in[anchor_0 + i_0, ..., anchor_{n-1} + i_{n-1}] where that element is
//   inside the input, else the fill value. The anchor may be negative and the window may extend
//   past the input on any side (pad and paste are slices with a larger window). The fill value may
//   vary along one "channel" dimension: fill[c % fill.size()] (one value: every element).
//   Elements are converted with cast's rules (kernels::ConvertSaturate) when Out differs from In.
//
// Thread-safety: reentrant, no allocation. `in` holds prod(in_shape) packed elements (row-major),
// `out` prod(out_shape); they must not overlap.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "kernels/tensor/cast.h"

namespace sluice::kernels {

struct SliceSpec {
  std::vector<int64_t> in_shape;   // the input's extents
  std::vector<int64_t> anchor;     // where output element 0 sits in the input (may be negative)
  std::vector<int64_t> out_shape;  // the output's extents (same rank)
  int channel_dim = -1;            // the dimension `fill` varies along; -1: fill[0] everywhere
};

// Throws sluice::Error on mismatched ranks, negative extents or an empty fill.
void ValidateSliceSpec(const SliceSpec& s, size_t fill_count);

namespace slice_detail {

template <typename Out, typename In>
struct Ctx {
  const SliceSpec& s;
  std::span<const Out> fill;
  int ndim;
  int64_t in_stride[16];
  int64_t out_vol[17];  // out_vol[d] = prod(out_shape[d..])
};

template <typename Out, typename In>
void FillBlock(const Ctx<Out, In>& x, Out* out, int d, int64_t c) {
  const size_t nf = x.fill.size();
  if (nf == 1 || x.s.channel_dim < d) {  // uniform over this block
    std::fill_n(out, x.out_vol[d], x.fill[c >= 0 ? static_cast<size_t>(c) % nf : 0]);
    return;
  }
  const int64_t n = x.s.out_shape[static_cast<size_t>(d)];
  for (int64_t i = 0; i < n; ++i) FillBlock(x, out + i * x.out_vol[d + 1], d + 1, d == x.s.channel_dim ? i : c);
}

template <typename Out, typename In>
void Copy(const Ctx<Out, In>& x, const In* in, Out* out, int d, int64_t c) {
  const auto k = static_cast<size_t>(d);
  const int64_t n = x.s.out_shape[k], m = x.s.in_shape[k], a = x.s.anchor[k];
  const int64_t lo = std::clamp<int64_t>(-a, 0, n), hi = std::clamp<int64_t>(m - a, lo, n);
  const int64_t block = x.out_vol[d + 1];
  auto chan = [&](int64_t i) { return d == x.s.channel_dim ? i : c; };
  for (int64_t i = 0; i < lo; ++i) FillBlock(x, out + i * block, d + 1, chan(i));
  if (d == x.ndim - 1) {
    const In* src = in + (a + lo);
    Out* dst = out + lo;
    if constexpr (std::is_same_v<Out, In>) std::copy(src, src + (hi - lo), dst);
    else
      for (int64_t i = 0; i < hi - lo; ++i) dst[i] = ConvertSaturate<Out>(src[i]);
  } else {
    for (int64_t i = lo; i < hi; ++i) Copy(x, in + (a + i) * x.in_stride[d], out + i * block, d + 1, chan(i));
  }
  for (int64_t i = hi; i < n; ++i) FillBlock(x, out + i * block, d + 1, chan(i));
}

}  // namespace slice_detail

template <typename Out, typename In>
void SlicePad(const In* in, Out* out, const SliceSpec& s, std::span<const Out> fill) {
  ValidateSliceSpec(s, fill.size());
  slice_detail::Ctx<Out, In> x{s, fill, static_cast<int>(s.in_shape.size()), {}, {}};
  if (x.ndim == 0) {
    out[0] = ConvertSaturate<Out>(in[0]);
    return;
  }
  x.out_vol[x.ndim] = 1;
  int64_t stride = 1;
  for (int d = x.ndim - 1; d >= 0; --d) {
    x.in_stride[d] = stride;
    stride *= s.in_shape[static_cast<size_t>(d)];
    x.out_vol[d] = x.out_vol[d + 1] * s.out_shape[static_cast<size_t>(d)];
  }
  if (x.out_vol[0] == 0) return;
  slice_detail::Copy(x, in, out, 0, -1);
}

}  // namespace sluice::kernels
