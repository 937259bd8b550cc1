// A streaming parser of tar archive headers (POSIX ustar, GNU and PAX formats).
//
// Reads only headers (and the data of GNU long-name and PAX extension members) through a
// ByteSource, so it never reads outside the archive and can skip gigabytes of data cheaply.
// Supported: ustar prefix+name, GNU long names/links ('L'/'K'), PAX extended headers ('x': path,
// linkpath, size; 'g' global headers are ignored), base-256 numbers, header checksums (unsigned
// or signed sums). Data is skipped the way Python's tarfile does (regular and unknown types carry
// data; links, directories, devices and FIFOs do not). Not thread-safe; one reader per thread.
#pragma once
#include <cstdint>
#include <string>

#include "readers/storage/file_source.h"

namespace sluice {

inline constexpr int64_t kTarBlockSize = 512;

struct TarEntry {
  std::string name;      // full member name
  std::string linkname;
  char type = '0';       // typeflag of the member's own header
  int64_t header_offset = 0;  // the member's own header (after any 'L'/'K'/'x' headers)
  int64_t data_offset = 0;    // header_offset + 512
  int64_t size = 0;           // data size (PAX size= wins over the header field)
  // Regular file: typeflag '0', '\0' (unless the name ends in '/', an old-style directory) or '7'.
  bool is_regular() const;
};

class TarReader {
 public:
  // `source` must outlive the reader.
  explicit TarReader(const ByteSource& source) : src_(source) {}

  // Reads the next member; returns false at the end of the archive (a zero block, or the end of
  // the file exactly at a header boundary). Throws sluice::Error naming the archive and the
  // offset for a truncated header or member, a checksum mismatch, or a malformed field.
  bool Next(TarEntry* entry);
  // Offset of the next header to read.
  int64_t offset() const { return offset_; }

 private:
  [[noreturn]] void Fail(int64_t offset, const std::string& msg) const;
  std::string ReadMeta(int64_t data_offset, int64_t size, const char* what, int64_t header_offset) const;
  void ParsePax(const std::string& data, int64_t header_offset, bool global);

  const ByteSource& src_;
  int64_t offset_ = 0;
  bool done_ = false;
  // Pending overrides for the next member (GNU 'L'/'K', PAX 'x').
  std::string long_name_, long_link_, pax_path_, pax_linkpath_;
  bool has_long_name_ = false, has_long_link_ = false, has_pax_path_ = false, has_pax_linkpath_ = false;
  int64_t pax_size_ = -1;
};

// Parses a numeric header field: octal (optionally space/NUL padded) or base-256 (high bit of the
// first byte set). Returns false if malformed, negative or beyond int64.
bool ParseTarNumber(const char* field, size_t len, int64_t* value);

}  // namespace sluice
