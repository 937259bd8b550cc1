#include "kernels/erase/erase.h"

#include <algorithm>

#include "kernels/tensor/cast.h"

namespace sluice::kernels {
namespace {

template <typename T>
void FillRec(T* data, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
             const std::vector<int64_t>& lo, const std::vector<int64_t>& hi, const std::vector<T>& fill,
             int channel_axis, size_t dim, int64_t offset, int64_t channel) {
  const size_t nd = shape.size();
  for (int64_t i = lo[dim]; i < hi[dim]; ++i) {
    const int64_t off = offset + i * strides[dim];
    const int64_t ch = static_cast<int>(dim) == channel_axis ? i : channel;
    if (dim + 1 == nd) {
      data[off] = fill.size() > 1 ? fill[static_cast<size_t>(ch)] : fill[0];
    } else {
      FillRec(data, shape, strides, lo, hi, fill, channel_axis, dim + 1, off, ch);
    }
  }
}

}  // namespace

void EraseBox(void* data, DType type, const std::vector<int64_t>& shape, std::vector<int64_t> lo,
              std::vector<int64_t> hi, const std::vector<double>& fill, int channel_axis) {
  const size_t nd = shape.size();
  if (nd == 0 || fill.empty()) return;
  std::vector<int64_t> strides(nd, 1);
  for (size_t d = nd - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
  for (size_t d = 0; d < nd; ++d) {
    lo[d] = std::clamp<int64_t>(lo[d], 0, shape[d]);
    hi[d] = std::clamp<int64_t>(hi[d], 0, shape[d]);
    if (lo[d] >= hi[d]) return;
  }
  VisitDType(type, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> f;
    for (double v : fill) f.push_back(ConvertSaturate<T>(v));
    FillRec(static_cast<T*>(data), shape, strides, lo, hi, f, channel_axis, 0, 0, 0);
  });
}

}  // namespace sluice::kernels
