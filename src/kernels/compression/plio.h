// PLIO line-list decompression (IRAF's run-length code; ZCMPTYPE = 'PLIO_1' tiles of FITS images,
// as CFITSIO's pl_l2pi reads them): a header of 3 or 7 16-bit words giving the list's length and
// first instruction, then instructions of a 4-bit opcode and 12 bits of data: runs of zeros or of
// the current value, a zero run ending in the value, setting / raising / lowering the value, and
// single pixels. Pixels the list leaves unset are 0.
// Never reads outside [list, list + size) nor writes outside [out, out + count): a list whose header
// or instructions point past its end throws sluice::Error. Reentrant; no allocation.
#pragma once
#include <cstddef>
#include <cstdint>

namespace sluice::kernels {

void PlioDecode(const int16_t* list, int64_t size, int32_t* out, int64_t count);

}  // namespace sluice::kernels
