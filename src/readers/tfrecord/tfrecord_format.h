// TFRecord framing (TensorFlow's record file format) and DALI's tfrecord2idx index format.
//
// A record is: uint64 length (little endian), uint32 masked CRC32C of those 8 bytes, `length`
// bytes of data, uint32 masked CRC32C of the data. The mask is ((crc >> 15) | (crc << 17)) +
// 0xa282ead8. DALI's index (tfrecord2idx) has one line per record: "offset size\n", size being the
// whole record (16 bytes of framing plus the data).
//
// Every parser here works on untrusted bytes: a bad CRC, a truncated record or a malformed index
// line throws sluice::Error naming the file and the byte offset; nothing reads out of bounds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

class ByteSource;

// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), continuing from `crc` (0 to start).
uint32_t Crc32c(const void* data, size_t n, uint32_t crc = 0);
// TFRecord's masked CRC.
inline uint32_t MaskCrc32c(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

constexpr int64_t kTfRecordFraming = 16;  // 8 (length) + 4 (length CRC) + 4 (data CRC)

struct TfRecordEntry {
  int64_t offset = 0;  // of the record's first byte (its length field)
  int64_t size = 0;    // the whole record, framing included
  bool operator==(const TfRecordEntry&) const = default;
};

// Checks one whole record held in [rec, rec + size) (read from `file` at `offset`): its length
// field must equal size - 16 and both CRCs must match. Returns the data's offset within rec (8 + 4).
// Throws sluice::Error naming file and offset.
void CheckTfRecord(const uint8_t* rec, size_t size, const std::string& file, int64_t offset);

// Walks the records of a whole source (no index), checking each length CRC and, if check_data,
// each data CRC. A trailing partial record is an error naming the offset.
std::vector<TfRecordEntry> ScanTfRecords(const ByteSource& src, bool check_data = true);

// DALI's index text for `records`: "offset size\n" per record.
std::string WriteTfRecordIndex(const std::vector<TfRecordEntry>& records);

// Parses DALI's index format: one "offset size" line per record (blank lines ignored; spaces or
// tabs between the two numbers). Each entry must fit inside a file of `file_size` bytes, be at
// least 16 bytes and not overlap the previous one. Errors name index_name and the line.
std::vector<TfRecordEntry> ParseTfRecordIndex(std::string_view text, const std::string& index_name,
                                              int64_t file_size);

}  // namespace sluice
