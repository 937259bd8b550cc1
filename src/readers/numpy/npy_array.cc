#include "readers/numpy/npy_array.h"

#include <algorithm>
#include <cstring>

#include "kernels/tensor/cast.h"

namespace sluice {
namespace {

// The permutation that reverses n axes (Fortran order is C order of the reversed axes).
std::vector<int> ReversedAxes(size_t n) {
  std::vector<int> p(n);
  for (size_t j = 0; j < n; ++j) p[j] = static_cast<int>(n - 1 - j);
  return p;
}

// Sets the `count` elements of dst to `value` converted to `dtype`.
void FillElements(DType dtype, double value, char* dst, int64_t count) {
  VisitDType(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::fill_n(reinterpret_cast<T*>(dst), count, kernels::ConvertSaturate<T>(value));
  });
}

}  // namespace

void CopyBoxPermuted(const char* src, const std::vector<int64_t>& src_shape, const std::vector<int>& perm, char* dst,
                     const std::vector<int64_t>& dst_shape, const std::vector<int64_t>& dst_offset, size_t elem) {
  const size_t n = src_shape.size();
  int64_t total = 1;
  for (int64_t d : src_shape) total *= d;
  if (total == 0) return;
  // dst strides (elements), then the stride in dst of each source axis.
  std::vector<int64_t> dst_stride(n, 1), s_in_dst(n);
  for (size_t k = n; k-- > 1;) dst_stride[k - 1] = dst_stride[k] * dst_shape[k];
  int64_t base = 0;
  for (size_t k = 0; k < n; ++k) base += dst_offset[k] * dst_stride[k];
  for (size_t j = 0; j < n; ++j) s_in_dst[j] = dst_stride[static_cast<size_t>(perm[j])];
  std::vector<int64_t> idx(n, 0);
  int64_t d = base;
  const int64_t inner = n ? src_shape[n - 1] : 1;
  const int64_t inner_stride = n ? s_in_dst[n - 1] : 1;
  for (int64_t e = 0; e < total; e += inner) {
    if (inner_stride == 1) {
      std::memcpy(dst + static_cast<size_t>(d) * elem, src + static_cast<size_t>(e) * elem, static_cast<size_t>(inner) * elem);
    } else {
      for (int64_t k = 0; k < inner; ++k)
        std::memcpy(dst + static_cast<size_t>(d + k * inner_stride) * elem, src + static_cast<size_t>(e + k) * elem, elem);
    }
    // Advance the outer source index.
    for (size_t j = n - 1; j-- > 0;) {
      d += s_in_dst[j];
      if (++idx[j] < src_shape[j]) break;
      d -= s_in_dst[j] * src_shape[j];
      idx[j] = 0;
    }
  }
}

void ReadNpyArray(const ByteSource& file, const NpyHeader& h, char* dst, std::vector<char>& scratch) {
  const size_t bytes = static_cast<size_t>(h.num_bytes());
  if (!h.fortran_order || h.shape.size() < 2) {
    file.ReadAt(h.data_offset, bytes, dst);
    return;
  }
  scratch.resize(bytes);
  file.ReadAt(h.data_offset, bytes, scratch.data());
  const std::vector<int64_t> file_shape(h.shape.rbegin(), h.shape.rend());
  CopyBoxPermuted(scratch.data(), file_shape, ReversedAxes(file_shape.size()), dst, h.shape,
                  std::vector<int64_t>(h.shape.size(), 0), SizeOf(h.dtype));
}

void ReadNpyBox(const ByteSource& file, const NpyHeader& h, const std::vector<int64_t>& anchor,
                const std::vector<int64_t>& shape, double fill_value, char* dst, std::vector<char>& scratch) {
  const size_t n = h.shape.size();
  const size_t elem = SizeOf(h.dtype);
  int64_t out_total = 1;
  for (int64_t v : shape) out_total *= v;
  if (out_total == 0) return;
  // The intersection of the box with the array (C-order coordinates).
  std::vector<int64_t> lo(n), len(n);
  bool inside = true, empty = false;
  for (size_t k = 0; k < n; ++k) {
    const int64_t a = std::max<int64_t>(anchor[k], 0);
    const int64_t b = std::min<int64_t>(anchor[k] + shape[k], h.shape[k]);
    lo[k] = a;
    len[k] = std::max<int64_t>(b - a, 0);
    if (len[k] == 0) empty = true;
    if (a != anchor[k] || len[k] != shape[k]) inside = false;
  }
  if (!inside) FillElements(h.dtype, fill_value, dst, out_total);  // the part read is copied over it
  if (empty) return;
  // File-order geometry: C order as is, Fortran order is C order of the reversed axes.
  std::vector<int64_t> fshape = h.shape, flo = lo, flen = len;
  if (h.fortran_order) {
    std::reverse(fshape.begin(), fshape.end());
    std::reverse(flo.begin(), flo.end());
    std::reverse(flen.begin(), flen.end());
  }
  const bool direct = inside && (!h.fortran_order || n < 2);
  int64_t box = 1;
  for (int64_t v : flen) box *= v;
  char* buf = dst;
  if (!direct) {
    scratch.resize(static_cast<size_t>(box) * elem);
    buf = scratch.data();
  }
  // Contiguous runs: the innermost axis, merged outward while the inner axes are covered whole.
  int64_t run = 1;
  size_t outer = n;  // axes [0, outer) are iterated
  while (outer > 0) {
    const size_t k = outer - 1;
    run *= flen[k];
    --outer;
    if (flo[k] != 0 || flen[k] != fshape[k]) break;
  }
  std::vector<int64_t> fstride(n, 1);
  for (size_t k = n; k-- > 1;) fstride[k - 1] = fstride[k] * fshape[k];
  std::vector<int64_t> idx(outer, 0);
  const int64_t runs = run > 0 ? box / run : 0;
  for (int64_t r = 0; r < runs; ++r) {
    int64_t off = 0;
    for (size_t k = 0; k < n; ++k) off += (flo[k] + (k < outer ? idx[k] : 0)) * fstride[k];
    file.ReadAt(h.data_offset + off * static_cast<int64_t>(elem), static_cast<size_t>(run) * elem,
                buf + static_cast<size_t>(r * run) * elem);
    for (size_t k = outer; k-- > 0;) {
      if (++idx[k] < flen[k]) break;
      idx[k] = 0;
    }
  }
  if (direct) return;
  std::vector<int64_t> dst_off(n);
  for (size_t k = 0; k < n; ++k) dst_off[k] = lo[k] - anchor[k];
  std::vector<int> perm(n);
  for (size_t j = 0; j < n; ++j) perm[j] = static_cast<int>(j);
  if (h.fortran_order) perm = ReversedAxes(n);
  CopyBoxPermuted(buf, flen, perm, dst, shape, dst_off, elem);
}

}  // namespace sluice
