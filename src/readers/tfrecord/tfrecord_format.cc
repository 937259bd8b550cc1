#include "readers/tfrecord/tfrecord_format.h"

#include <array>
#include <charconv>
#include <cstring>

#include <sluice/error.h>

#include "readers/storage/file_source.h"

namespace sluice {
namespace {

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();

uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

std::string Where(const std::string& file, int64_t offset) {
  return "TFRecord file '" + file + "', record at byte offset " + std::to_string(offset);
}

// Checks the 12-byte header; returns the data length.
uint64_t CheckHeader(const uint8_t* h, const std::string& file, int64_t offset) {
  const uint64_t len = LoadLE64(h);
  const uint32_t want = LoadLE32(h + 8);
  const uint32_t got = MaskCrc32c(Crc32c(h, 8));
  if (want != got)
    throw Error(Where(file, offset) + ": length CRC mismatch (stored " + std::to_string(want) + ", computed " +
                std::to_string(got) + "): corrupted or not a TFRecord file");
  return len;
}

}  // namespace

uint32_t Crc32c(const void* data, size_t n, uint32_t crc) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
  return ~crc;
}

void CheckTfRecord(const uint8_t* rec, size_t size, const std::string& file, int64_t offset) {
  if (size < static_cast<size_t>(kTfRecordFraming))
    throw Error(Where(file, offset) + ": truncated record (" + std::to_string(size) +
                " bytes, less than the 16 bytes of framing)");
  const uint64_t len = CheckHeader(rec, file, offset);
  if (len != size - static_cast<size_t>(kTfRecordFraming))
    throw Error(Where(file, offset) + ": the record's length field says " + std::to_string(len) +
                " bytes of data but the index gives " + std::to_string(size - kTfRecordFraming) +
                " (record size " + std::to_string(size) + "): truncated record or stale index");
  const uint32_t want = LoadLE32(rec + 12 + len);
  const uint32_t got = MaskCrc32c(Crc32c(rec + 12, static_cast<size_t>(len)));
  if (want != got)
    throw Error(Where(file, offset) + ": data CRC mismatch (stored " + std::to_string(want) + ", computed " +
                std::to_string(got) + "): corrupted record");
}

std::vector<TfRecordEntry> ScanTfRecords(const ByteSource& src, bool check_data) {
  std::vector<TfRecordEntry> out;
  const int64_t size = src.size();
  int64_t off = 0;
  std::vector<uint8_t> buf;
  while (off < size) {
    if (size - off < 12)
      throw Error(Where(src.name(), off) + ": truncated record (the file ends " + std::to_string(size - off) +
                  " bytes after the record's start, inside its 12-byte header)");
    uint8_t h[12];
    src.ReadAt(off, 12, h);
    const uint64_t len = CheckHeader(h, src.name(), off);
    const uint64_t left = static_cast<uint64_t>(size - off);
    if (len > left || left - len < static_cast<uint64_t>(kTfRecordFraming))
      throw Error(Where(src.name(), off) + ": truncated record (its length field says " + std::to_string(len) +
                  " bytes of data; the file has " + std::to_string(size - off) + " bytes from the record's start)");
    const int64_t rec_size = static_cast<int64_t>(len) + kTfRecordFraming;
    if (check_data) {
      buf.resize(static_cast<size_t>(rec_size));
      src.ReadAt(off, buf.size(), buf.data());
      CheckTfRecord(buf.data(), buf.size(), src.name(), off);
    }
    out.push_back({off, rec_size});
    off += rec_size;
  }
  return out;
}

std::string WriteTfRecordIndex(const std::vector<TfRecordEntry>& records) {
  std::string s;
  for (const auto& r : records) s += std::to_string(r.offset) + " " + std::to_string(r.size) + "\n";
  return s;
}

std::vector<TfRecordEntry> ParseTfRecordIndex(std::string_view text, const std::string& index_name,
                                              int64_t file_size) {
  std::vector<TfRecordEntry> out;
  size_t pos = 0;
  int64_t line_no = 0, prev_end = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto bad = [&](const std::string& why) -> Error {
      return Error("TFRecord index '" + index_name + "', line " + std::to_string(line_no) + ": " + why);
    };
    auto skip_ws = [&](size_t i) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      return i;
    };
    size_t i = skip_ws(0);
    if (i == line.size()) continue;  // blank line
    int64_t v[2];
    for (int k = 0; k < 2; ++k) {
      i = skip_ws(i);
      const char* b = line.data() + i;
      const char* e = line.data() + line.size();
      auto [p, ec] = std::from_chars(b, e, v[k]);
      if (ec != std::errc() || p == b || v[k] < 0)
        throw bad("expected \"offset size\" (two non-negative integers), got \"" + std::string(line.substr(0, 80)) + "\"");
      i = static_cast<size_t>(p - line.data());
      if (k == 0 && (i == line.size() || (line[i] != ' ' && line[i] != '\t')))
        throw bad("expected \"offset size\" (two non-negative integers), got \"" + std::string(line.substr(0, 80)) + "\"");
    }
    if (skip_ws(i) != line.size()) throw bad("unexpected text after \"offset size\": \"" + std::string(line.substr(0, 80)) + "\"");
    const int64_t off = v[0], size = v[1];
    if (size < kTfRecordFraming)
      throw bad("record size " + std::to_string(size) + " is less than the 16 bytes of TFRecord framing");
    if (off > file_size || size > file_size - off)
      throw bad("record [" + std::to_string(off) + ", " + std::to_string(off) + " + " + std::to_string(size) +
                ") goes past the end of the TFRecord file (" + std::to_string(file_size) +
                " bytes): stale index or truncated file");
    if (off < prev_end)
      throw bad("record at offset " + std::to_string(off) + " overlaps the previous one (which ends at " +
                std::to_string(prev_end) + ")");
    prev_end = off + size;
    out.push_back({off, size});
  }
  return out;
}

}  // namespace sluice
