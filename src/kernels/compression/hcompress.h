// H-compress decompression (R. White's algorithm; ZCMPTYPE = 'HCOMPRESS_1' tiles of FITS images, as
// CFITSIO's fits_hdecompress reads them): a header (magic DD 99, the tile's nx x ny, the scale, the
// sum of all pixels, the bit-plane counts of the three coefficient quadrants), quadtree-coded bit
// planes of the H-transform's coefficients (fixed Huffman codes of 2x2 masks, or planes written
// directly), their signs, then multiplication by the scale and the inverse H-transform. Smoothing
// during the inversion (SMOOTH != 0) is not supported.
// `narrow` reproduces CFITSIO's 32-bit decoder for 8- and 16-bit images (the pixel sum truncated to
// 32 bits); otherwise the 64-bit one. Never reads outside [src, src + size) nor writes outside
// [out, out + count): a stream that ends early, a bad magic or format code, a size other than
// `count`, or bit-plane counts over 62 throw sluice::Error. Reentrant; allocates scratch per tile.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void HcompressDecode(const uint8_t* src, size_t size, bool narrow, int64_t* out, int64_t count);

}  // namespace sluice::kernels
