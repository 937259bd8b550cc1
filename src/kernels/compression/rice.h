// Rice decompression of one tile of a tile-compressed FITS image (ZCMPTYPE = 'RICE_1', the FITS
// standard's tiled image convention, as CFITSIO's fits_rdecomp and astropy write it): the first
// pixel as `bytepix` big-endian bytes, then blocks of `block_size` pixel differences, each block a
// code of 3, 4 or 5 bits (bytepix 1, 2, 4) selecting zero differences, raw differences of 8 x bytepix
// bits, or Rice codes with that many low bits; differences are zigzag-coded and accumulate modulo
// 2^(8 x bytepix).
// Never reads outside [src, src + size): a stream that ends before `count` pixels, or a bad
// bytepix / block_size, throws sluice::Error saying which. Writes exactly `count` values to out,
// as the bytepix-wide integers read back: bytepix 1 unsigned, 2 and 4 two's complement (sign-extended).
// Reentrant; no allocation.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void RiceDecode(const uint8_t* src, size_t size, int bytepix, int block_size, int64_t* out, int64_t count);

}  // namespace sluice::kernels
