// Internal: the rows of the intermediate (horizontally resized) image that the vertical pass reads.
// Without antialiasing a strong downscale reads a few rows per output row and skips the rest (2 of
// every 5 at 1080 -> 224 linear), so the horizontal pass computes only those: the output is the same,
// since a row the vertical pass never reads never reaches it.
#pragma once
#include <cstdint>
#include <vector>

namespace sluice::kernels::resize_detail {

// Marks in `read` (rows entries) the intermediate rows output row y reads: ystart[y] + k for the
// taps k that VertT keeps (it trims zero weights at either end of a row's window and reads every
// tap in between); coef holds out_h * taps weights. Returns the mask, or nullptr when every row is
// read (the horizontal pass then needs no mask).
template <typename TAcc>
const uint8_t* ReadRowMask(const TAcc* coef, const int32_t* ystart, int taps, int out_h, int rows,
                           std::vector<uint8_t>& read) {
  read.assign(static_cast<size_t>(rows), 0);
  int marked = 0;
  for (int y = 0; y < out_h; ++y) {
    const TAcc* w = coef + size_t(y) * size_t(taps);
    int k0 = 0, k1 = taps;
    while (k0 < k1 - 1 && w[k0] == 0) ++k0;
    while (k1 - 1 > k0 && w[k1 - 1] == 0) --k1;
    for (int k = k0; k < k1; ++k) {
      const int r = ystart[y] + k;
      if (r >= 0 && r < rows && !read[static_cast<size_t>(r)]) {
        read[static_cast<size_t>(r)] = 1;
        ++marked;
      }
    }
  }
  return marked == rows ? nullptr : read.data();
}

}  // namespace sluice::kernels::resize_detail
