// Reading the array of a .npy file into a C-order buffer: the whole array (a Fortran-order one
// transposed, as DALI does), or a box of it (readers.numpy's region of interest), of which only the
// bytes are read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "readers/storage/file_source.h"
#include "readers/numpy/npy_header.h"

namespace sluice {

// Copies a box of elements stored in C order with shape `src_shape` into `dst` (C order, shape
// `dst_shape`) at `dst_offset`, where source axis j is destination axis perm[j].
void CopyBoxPermuted(const char* src, const std::vector<int64_t>& src_shape, const std::vector<int>& perm, char* dst,
                     const std::vector<int64_t>& dst_shape, const std::vector<int64_t>& dst_offset, size_t elem);

// Reads the whole array of `file`, whose header is `h`, into dst (h.num_bytes() bytes, C order; a
// Fortran-order array is read into `scratch` first, then transposed).
void ReadNpyArray(const ByteSource& file, const NpyHeader& h, char* dst, std::vector<char>& scratch);

// Reads the box [anchor, anchor + shape) of the array of `file` (C-order coordinates; the box may
// reach outside the array) into dst (C order, `shape`). Elements outside the array are fill_value
// converted to the array's dtype by cast's rules (kernels::ConvertSaturate: float16 rounds to
// nearest even, integers round and saturate). Only the bytes of the box inside the array are read,
// one read per contiguous run in file order: the innermost axis, merged with the axes around it
// while the box spans them whole.
void ReadNpyBox(const ByteSource& file, const NpyHeader& h, const std::vector<int64_t>& anchor,
                const std::vector<int64_t>& shape, double fill_value, char* dst, std::vector<char>& scratch);

}  // namespace sluice
