#include "kernels/compression/lz4_block.h"

#include <lz4.h>

#include <climits>
#include <string>

#include <sluice/error.h>

namespace sluice::kernels {

void InflateLz4Block(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size) {
  if (src_size > static_cast<size_t>(INT_MAX) || dst_size > static_cast<size_t>(INT_MAX))
    throw Error("LZ4 block of " + std::to_string(src_size) + " bytes inflating to " + std::to_string(dst_size) +
                " bytes: liblz4 takes at most 2 GiB - 1 per block");
  // LZ4_decompress_safe never writes past dst_size: a block that would is reported as malformed.
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst),
                                    static_cast<int>(src_size), static_cast<int>(dst_size));
  if (n < 0)
    throw Error("corrupt LZ4 block (" + std::to_string(src_size) + " bytes), or one that inflates to more than the " +
                std::to_string(dst_size) + " bytes the shape and dtype ask for");
  if (static_cast<size_t>(n) != dst_size)
    throw Error("the LZ4 block inflates to " + std::to_string(n) + " bytes, the shape and dtype ask for " +
                std::to_string(dst_size));
}

}  // namespace sluice::kernels
