#include "kernels/slice/slice_pad.h"

#include <string>

#include "sluice/error.h"

namespace sluice::kernels {

void ValidateSliceSpec(const SliceSpec& s, size_t fill_count) {
  const size_t n = s.in_shape.size();
  if (s.anchor.size() != n || s.out_shape.size() != n)
    throw Error("slice: the anchor (" + std::to_string(s.anchor.size()) + ") and the output shape (" +
                std::to_string(s.out_shape.size()) + ") must have the input's rank " + std::to_string(n));
  if (n > 16) throw Error("slice: at most 16 dimensions, got " + std::to_string(n));
  for (size_t d = 0; d < n; ++d)
    if (s.in_shape[d] < 0 || s.out_shape[d] < 0) throw Error("slice: negative extent in dimension " + std::to_string(d));
  if (fill_count == 0) throw Error("slice: no fill value");
  if (s.channel_dim >= static_cast<int>(n)) throw Error("slice: channel dimension out of range");
}

}  // namespace sluice::kernels
