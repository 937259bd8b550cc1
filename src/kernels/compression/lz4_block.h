// LZ4 block decompression (liblz4's LZ4_decompress_safe): the raw block format, without the frame
// header, as NVIDIA's nvCOMP LZ4 (behind DALI's decoders.inflate) reads it and as
// lz4.block.compress(data, store_size=False) writes it. Reentrant; no allocation.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

// Decompresses the block [src, src + src_size) into dst, which must receive exactly dst_size bytes:
// corrupt input or a block that inflates to more bytes, one that inflates to fewer, and sizes beyond
// INT32_MAX (liblz4's limit) throw sluice::Error saying which. Never reads or writes outside the two
// ranges (liblz4's safe decoder; fuzzed by fuzz/fuzz_inflate_lz4.cc).
void InflateLz4Block(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size);

}  // namespace sluice::kernels
