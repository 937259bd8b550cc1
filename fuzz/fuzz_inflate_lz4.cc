// libFuzzer target: LZ4 block decompression (decoders.inflate). The first two bytes are the size the
// block must inflate to (little-endian, at most 64 KiB), the rest the block. Must never crash or touch
// memory outside the two buffers; corrupt or mis-sized blocks may only throw sluice::Error.
// Seed corpus: fuzz/lz4_seeds/ (blocks written by python3-lz4, prefixed with their inflated size).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <sluice/error.h>

#include "kernels/compression/lz4_block.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t expected = static_cast<size_t>(data[0]) | static_cast<size_t>(data[1]) << 8;
  std::vector<uint8_t> out(expected);
  try {
    sluice::kernels::InflateLz4Block(data + 2, size - 2, out.data(), out.size());
  } catch (const sluice::Error&) {
  }
  return 0;
}
