// The .npy file header (NumPy's format, versions 1.0, 2.0 and 3.0): magic "\x93NUMPY", version,
// header length (2 bytes in 1.0, 4 in 2.0/3.0, little-endian), then a Python dict literal with
// 'descr', 'fortran_order' and 'shape'. Only Sluice's dtypes are accepted (uint8 int8 uint16 int16
// int32 int64 float16 float32 float64 bool), little-endian or byte-order-free ('|'); anything else
// is a sluice::Error naming the file and the reason (the parser is fuzzed: it must never crash).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <sluice/dtype.h>

#include "readers/storage/file_source.h"

namespace sluice {

struct NpyHeader {
  int version_major = 1, version_minor = 0;
  DType dtype = DType::kUInt8;
  bool fortran_order = false;
  std::vector<int64_t> shape;  // () for a scalar
  int64_t data_offset = 0;     // where the array's bytes start in the file
  int64_t num_elements() const;
  int64_t num_bytes() const { return num_elements() * static_cast<int64_t>(SizeOf(dtype)); }
};

// The most bytes a header may take (preamble + dict); larger ones are an error.
inline constexpr int64_t kMaxNpyHeaderBytes = int64_t{1} << 20;

// How many bytes the header occupies in total, from the first 12 bytes of the file (`prefix`,
// at least 12 bytes unless the file is shorter). Throws naming `file` on a bad magic/version.
int64_t NpyHeaderSize(std::string_view prefix, const std::string& file);

// Parses a whole header (`bytes` holds at least NpyHeaderSize bytes; more is ignored).
NpyHeader ParseNpyHeader(std::string_view bytes, const std::string& file);

// Reads and parses the header at the start of `file` (two reads at most); errors name file.name().
NpyHeader ReadNpyHeader(const ByteSource& file);

}  // namespace sluice
