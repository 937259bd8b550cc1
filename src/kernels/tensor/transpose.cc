#include "kernels/tensor/transpose.h"

#include <cstring>
#include <string>

#include "sluice/error.h"

namespace sluice::kernels {
namespace {

// HWC -> CHW for `pixels` pixels of C channels (planar = true), or CHW -> HWC (planar = false).
template <typename T>
void Interleave(const T* in, T* out, size_t pixels, int64_t C, bool to_planar) {
  for (int64_t c = 0; c < C; ++c) {
    if (to_planar) {
      const T* s = in + c;
      T* d = out + size_t(c) * pixels;
      for (size_t i = 0; i < pixels; ++i, s += C) d[i] = *s;
    } else {
      const T* s = in + size_t(c) * pixels;
      T* d = out + c;
      for (size_t i = 0; i < pixels; ++i, d += C) *d = s[i];
    }
  }
}

template <size_t E>
void Generic(const uint8_t* in, uint8_t* out, int nd, const int64_t* oshape, const int64_t* istride, size_t esz) {
  const size_t e = E ? E : esz;
  int64_t idx[kMaxTransposeDims] = {};
  const int64_t inner = oshape[nd - 1], inner_stride = istride[nd - 1];
  int64_t outer = 1;
  for (int i = 0; i < nd - 1; ++i) outer *= oshape[i];
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off = 0;
    for (int i = 0; i < nd - 1; ++i) off += idx[i] * istride[i];
    const uint8_t* s = in + size_t(off) * e;
    for (int64_t j = 0; j < inner; ++j, out += e) std::memcpy(out, s + size_t(j * inner_stride) * e, e);
    for (int i = nd - 2; i >= 0; --i) {  // odometer increment of the outer indices
      if (++idx[i] < oshape[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

void TransposedShape(std::span<const int64_t> in_shape, std::span<const int> perm, std::span<int64_t> out_shape) {
  const size_t nd = in_shape.size();
  if (perm.size() != nd || out_shape.size() != nd || nd > size_t(kMaxTransposeDims))
    throw Error("transpose: perm has " + std::to_string(perm.size()) + " entries for a " + std::to_string(nd) +
                "-d input");
  bool seen[kMaxTransposeDims] = {};
  for (size_t i = 0; i < nd; ++i) {
    const int p = perm[i];
    if (p < 0 || size_t(p) >= nd || seen[p]) throw Error("transpose: perm is not a permutation of 0.." + std::to_string(nd - 1));
    seen[p] = true;
    if (in_shape[size_t(p)] < 0) throw Error("transpose: negative extent");
    out_shape[i] = in_shape[size_t(p)];
  }
}

void Transpose(const void* in, void* out, std::span<const int64_t> in_shape, std::span<const int> perm,
               size_t elem_size) {
  const int nd = int(in_shape.size());
  int64_t oshape[kMaxTransposeDims];
  TransposedShape(in_shape, perm, std::span<int64_t>(oshape, size_t(nd)));
  int64_t total = 1;
  for (int i = 0; i < nd; ++i) total *= in_shape[size_t(i)];
  if (total == 0) return;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  bool identity = true;
  for (int i = 0; i < nd; ++i) identity &= perm[size_t(i)] == i;
  if (nd == 0 || identity) {
    std::memcpy(dst, src, size_t(total) * elem_size);
    return;
  }
  if (nd == 3 && (elem_size == 1 || elem_size == 2 || elem_size == 4)) {
    const bool hwc_to_chw = perm[0] == 2 && perm[1] == 0 && perm[2] == 1;
    const bool chw_to_hwc = perm[0] == 1 && perm[1] == 2 && perm[2] == 0;
    if (hwc_to_chw || chw_to_hwc) {
      const int64_t C = hwc_to_chw ? in_shape[2] : in_shape[0];
      const size_t pixels = size_t(total / C);
      switch (elem_size) {
        case 1: Interleave(src, dst, pixels, C, hwc_to_chw); return;
        case 2: Interleave(reinterpret_cast<const uint16_t*>(src), reinterpret_cast<uint16_t*>(dst), pixels, C, hwc_to_chw); return;
        default: Interleave(reinterpret_cast<const uint32_t*>(src), reinterpret_cast<uint32_t*>(dst), pixels, C, hwc_to_chw); return;
      }
    }
  }
  int64_t in_stride[kMaxTransposeDims], istride[kMaxTransposeDims];
  in_stride[nd - 1] = 1;
  for (int i = nd - 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * in_shape[size_t(i + 1)];
  for (int i = 0; i < nd; ++i) istride[i] = in_stride[perm[size_t(i)]];
  switch (elem_size) {
    case 1: return Generic<1>(src, dst, nd, oshape, istride, elem_size);
    case 2: return Generic<2>(src, dst, nd, oshape, istride, elem_size);
    case 4: return Generic<4>(src, dst, nd, oshape, istride, elem_size);
    case 8: return Generic<8>(src, dst, nd, oshape, istride, elem_size);
    default: return Generic<0>(src, dst, nd, oshape, istride, elem_size);
  }
}

}  // namespace sluice::kernels
