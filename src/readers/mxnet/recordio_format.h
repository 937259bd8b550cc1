// MXNet's RecordIO (dmlc-core recordio.h) and its image-record header (mxnet/recordio.py IRHeader),
// the format readers.mxnet reads.
//
// A record part is: uint32 magic 0xced7230a, uint32 lrecord (cflag = lrecord >> 29, length =
// lrecord & (2^29 - 1)), `length` bytes, zero padding to a multiple of 4. cflag 0 is a whole
// record; a record whose data contains the magic word is written as parts split at each magic word
// (cflag 1 first, 2 middle, 3 last), and reading it back re-inserts the magic word between parts.
// An image record's payload starts with the IRHeader: uint32 flag, float32 label, uint64 id,
// uint64 id2 (24 bytes, little endian); flag > 0 means `flag` float32 labels follow the header
// (and `label` is unused). The rest is the image's encoded bytes.
// MXNet's .idx (MXIndexedRecordIO) has one "key\toffset" line per record; a record's bytes run from
// its offset to the next larger offset in the index (or the end of the file), as DALI reads it.
//
// Every parser works on untrusted bytes: a malformed index line, a bad magic word, a record running
// past its index entry or an IRHeader longer than its record throws sluice::Error naming the file
// and the byte offset; nothing reads out of bounds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

inline constexpr uint32_t kRecordIOMagic = 0xced7230au;
inline constexpr size_t kImageRecordHeaderBytes = 24;

struct RecordIOEntry {
  int64_t offset = 0;  // of the record's first part (its magic word)
  int64_t size = 0;    // up to the next record in the index or the end of the file
  bool operator==(const RecordIOEntry&) const = default;
};

// Parses an .idx text ("key offset" per line; tabs or spaces; blank lines ignored). The entries
// come back sorted by offset (a repeated offset is one record, as DALI skips the zero-sized
// duplicate), each sized up to the next one or `file_size`. Errors name index_name and the line.
std::vector<RecordIOEntry> ParseRecordIOIndex(std::string_view text, const std::string& index_name,
                                              int64_t file_size);

// Reassembles the record held in [rec, rec + size) (read from `file` at `offset`): its parts'
// data, the magic word between split parts, into `payload` (cleared first). Bytes after the
// record's last part are ignored (the index entry may include padding). Throws sluice::Error
// naming file and offset on a bad magic word, a bad cflag sequence or a part past the end.
void ReadRecordIO(const uint8_t* rec, size_t size, const std::string& file, int64_t offset,
                  std::vector<uint8_t>& payload);

// An image record's payload split into its labels and its encoded image.
struct ImageRecord {
  uint32_t flag = 0;
  std::vector<float> labels;  // [label] when flag == 0, else the `flag` labels after the header
  uint64_t id = 0, id2 = 0;
  const uint8_t* image = nullptr;  // points into the payload
  size_t image_size = 0;
};
// Throws sluice::Error (naming file and offset) when the payload is shorter than the header and
// its labels.
ImageRecord ParseImageRecord(const uint8_t* payload, size_t size, const std::string& file, int64_t offset);

// Writes one record's parts (splitting at magic words, as dmlc's RecordIOWriter does) to `out`.
// For tests, fuzz seeds and tools.
void AppendRecordIO(const uint8_t* data, size_t size, std::string& out);

}  // namespace sluice
