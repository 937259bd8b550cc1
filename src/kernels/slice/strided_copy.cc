#include "kernels/slice/strided_copy.h"

#include <cstring>
#include <vector>

namespace sluice::kernels {
namespace {

struct Plan {
  std::vector<int64_t> in_stride;   // bytes per step of each kept dimension in the input
  std::vector<int64_t> out_extent;  // per kept dimension
  int64_t block = 0;                // bytes copied at once (the dense innermost run)
  int64_t elem = 0;                 // element bytes (the unit of a strided innermost copy)
  bool dense_inner = false;         // the innermost kept dimension is a dense run of `block` bytes
};

void Copy(const uint8_t* in, uint8_t*& out, const Plan& p, size_t d) {
  const int64_t n = p.out_extent[d];
  if (d + 1 == p.out_extent.size()) {
    if (p.dense_inner) {
      std::memcpy(out, in, static_cast<size_t>(p.block));
      out += p.block;
      return;
    }
    const int64_t s = p.in_stride[d];
    for (int64_t j = 0; j < n; ++j, out += p.elem) std::memcpy(out, in + j * s, static_cast<size_t>(p.elem));
    return;
  }
  for (int64_t j = 0; j < n; ++j) Copy(in + j * p.in_stride[d], out, p, d + 1);
}

}  // namespace

void StridedCopy(const void* in, std::span<const int64_t> in_shape, std::span<const int64_t> lo,
                 std::span<const int64_t> step, std::span<const int64_t> out_shape, void* out, size_t elem_bytes) {
  const int nd = static_cast<int>(in_shape.size());
  int64_t total = static_cast<int64_t>(elem_bytes);
  for (int d = 0; d < nd; ++d) total *= out_shape[static_cast<size_t>(d)];
  if (total == 0) return;
  // Input strides in bytes, and the byte offset of the window's first element.
  std::vector<int64_t> stride(static_cast<size_t>(nd));
  int64_t s = static_cast<int64_t>(elem_bytes), base = 0;
  for (int d = nd - 1; d >= 0; --d) {
    stride[static_cast<size_t>(d)] = s;
    base += lo[static_cast<size_t>(d)] * s;
    s *= in_shape[static_cast<size_t>(d)];
  }
  // The innermost dimensions taken whole (from 0, step 1, full extent) join the dimension before
  // them into one dense run.
  int inner = nd;
  int64_t block = static_cast<int64_t>(elem_bytes);
  while (inner > 0) {
    const size_t d = static_cast<size_t>(inner - 1);
    if (lo[d] != 0 || step[d] != 1 || out_shape[d] != in_shape[d]) break;
    block *= in_shape[d];
    --inner;
  }
  Plan p;
  p.elem = static_cast<int64_t>(elem_bytes);
  if (inner == 0) {  // the whole array
    std::memcpy(out, static_cast<const uint8_t*>(in) + base, static_cast<size_t>(block));
    return;
  }
  for (int d = 0; d < inner; ++d) {
    p.in_stride.push_back(stride[static_cast<size_t>(d)] * step[static_cast<size_t>(d)]);
    p.out_extent.push_back(out_shape[static_cast<size_t>(d)]);
  }
  const size_t last = static_cast<size_t>(inner - 1);
  if (step[last] == 1) {  // the last sliced dimension is a dense run too
    p.dense_inner = true;
    p.block = out_shape[last] * block;
  } else if (block != p.elem) {  // a strided dimension over whole inner blocks: copy block by block
    p.elem = block;
  }
  uint8_t* o = static_cast<uint8_t*>(out);
  Copy(static_cast<const uint8_t*>(in) + base, o, p, 0);
}

}  // namespace sluice::kernels
