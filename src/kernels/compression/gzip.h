// gzip (or zlib) decompression with zlib into a buffer of known size: the tiles of 'GZIP_1' and
// 'GZIP_2' tile-compressed FITS images. Corrupt or truncated input, output longer or shorter than
// dst_size, and sizes over 4 GiB throw sluice::Error saying which. Never reads or writes outside the
// two ranges (zlib's inflate with bounded input and output). Reentrant; zlib allocates its window.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void InflateGzip(const uint8_t* src, size_t src_size, uint8_t* dst, size_t dst_size);

}  // namespace sluice::kernels
