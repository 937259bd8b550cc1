#include "readers/webdataset/tar_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include <sluice/error.h>

namespace sluice {

namespace {

constexpr int64_t kMaxMetaSize = 16 << 20;  // GNU long names and PAX headers beyond this are refused

// ustar header field offsets.
constexpr size_t kName = 0, kNameLen = 100;
constexpr size_t kSize = 124, kSizeLen = 12;
constexpr size_t kChksum = 148, kChksumLen = 8;
constexpr size_t kType = 156;
constexpr size_t kLink = 157, kLinkLen = 100;
constexpr size_t kMagic = 257;
constexpr size_t kPrefix = 345, kPrefixLen = 155;

std::string FieldString(const char* p, size_t len) {
  return std::string(p, strnlen(p, len));
}

int64_t RoundUpBlock(int64_t n) { return (n + kTarBlockSize - 1) / kTarBlockSize * kTarBlockSize; }

bool HasData(char type) {
  switch (type) {
    case '1': case '2': case '3': case '4': case '5': case '6': return false;
    default: return true;
  }
}

}  // namespace

bool TarEntry::is_regular() const {
  if (type == '\0') return name.empty() || name.back() != '/';
  return type == '0' || type == '7';
}

bool ParseTarNumber(const char* field, size_t len, int64_t* value) {
  const auto* u = reinterpret_cast<const unsigned char*>(field);
  if (len > 0 && (u[0] & 0x80)) {
    if (u[0] != 0x80) return false;  // 0xff: negative; other values are not base-256
    uint64_t v = 0;
    for (size_t i = 1; i < len; ++i) {
      if (v >> 55) return false;  // would overflow int64
      v = (v << 8) | u[i];
    }
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *value = static_cast<int64_t>(v);
    return true;
  }
  size_t i = 0;
  while (i < len && (field[i] == ' ' || field[i] == '\0')) {
    if (field[i] == '\0') { *value = 0; return true; }  // empty field
    ++i;
  }
  uint64_t v = 0;
  bool any = false;
  for (; i < len; ++i) {
    const char c = field[i];
    if (c >= '0' && c <= '7') {
      if (v >> 60) return false;
      v = v * 8 + static_cast<uint64_t>(c - '0');
      any = true;
    } else if (c == ' ' || c == '\0') {
      break;
    } else {
      return false;
    }
  }
  // Only padding may follow the digits.
  for (; i < len; ++i)
    if (field[i] != ' ' && field[i] != '\0') return false;
  if (v > static_cast<uint64_t>(INT64_MAX)) return false;
  *value = any ? static_cast<int64_t>(v) : 0;
  return true;
}

void TarReader::Fail(int64_t offset, const std::string& msg) const {
  throw Error("tar archive " + src_.name() + ": " + msg + " at offset " + std::to_string(offset));
}

std::string TarReader::ReadMeta(int64_t data_offset, int64_t size, const char* what, int64_t header_offset) const {
  if (size > kMaxMetaSize) Fail(header_offset, std::string(what) + " of " + std::to_string(size) + " bytes is too large");
  if (size > src_.size() - data_offset)
    Fail(header_offset, std::string("archive ends inside a ") + what + " (needs " + std::to_string(size) +
                            " bytes, " + std::to_string(std::max<int64_t>(0, src_.size() - data_offset)) + " left)");
  std::string s(static_cast<size_t>(size), '\0');
  src_.ReadAt(data_offset, s.size(), s.data());
  return s;
}

void TarReader::ParsePax(const std::string& data, int64_t header_offset, bool global) {
  size_t pos = 0;
  while (pos < data.size()) {
    if (data[pos] == '\0') break;  // some writers pad the records with NULs
    // "<len> <key>=<value>\n", len counting the whole record.
    size_t sp = data.find(' ', pos);
    if (sp == std::string::npos || sp == pos) Fail(header_offset, "malformed PAX record (no length)");
    uint64_t len = 0;
    auto [p, ec] = std::from_chars(data.data() + pos, data.data() + sp, len);
    if (ec != std::errc() || p != data.data() + sp) Fail(header_offset, "malformed PAX record length");
    if (len < sp - pos + 3 || len > data.size() - pos) Fail(header_offset, "PAX record length out of range");
    const size_t end = pos + static_cast<size_t>(len);
    if (data[end - 1] != '\n') Fail(header_offset, "PAX record does not end with a newline");
    const std::string rec = data.substr(sp + 1, end - 1 - (sp + 1));
    const size_t eq = rec.find('=');
    if (eq == std::string::npos) Fail(header_offset, "PAX record without '='");
    const std::string key = rec.substr(0, eq);
    const std::string value = rec.substr(eq + 1);
    if (!global) {
      if (key == "path") {
        pax_path_ = value;
        has_pax_path_ = true;
      } else if (key == "linkpath") {
        pax_linkpath_ = value;
        has_pax_linkpath_ = true;
      } else if (key == "size") {
        int64_t v = 0;
        auto [q, ec2] = std::from_chars(value.data(), value.data() + value.size(), v);
        if (ec2 != std::errc() || q != value.data() + value.size() || v < 0 || value.empty())
          Fail(header_offset, "malformed PAX size '" + value + "'");
        pax_size_ = v;
      }
    }
    pos = end;
  }
}

bool TarReader::Next(TarEntry* entry) {
  if (done_) return false;
  char h[kTarBlockSize];
  for (;;) {
    const int64_t off = offset_;
    const int64_t left = src_.size() - off;
    if (left <= 0) {
      if (has_long_name_ || has_long_link_ || has_pax_path_ || pax_size_ >= 0)
        Fail(off, "archive ends after an extended header, before its member");
      done_ = true;
      return false;
    }
    if (left < kTarBlockSize)
      Fail(off, "archive ends mid-header (" + std::to_string(left) + " of 512 bytes)");
    src_.ReadAt(off, sizeof(h), h);
    if (std::all_of(h, h + sizeof(h), [](char c) { return c == 0; })) {
      done_ = true;
      return false;
    }
    // Checksum: the header's bytes with the checksum field counted as spaces.
    int64_t stored = 0;
    if (!ParseTarNumber(h + kChksum, kChksumLen, &stored)) Fail(off, "malformed header checksum field");
    int64_t usum = 0, ssum = 0;
    for (size_t i = 0; i < sizeof(h); ++i) {
      const bool in_field = i >= kChksum && i < kChksum + kChksumLen;
      usum += in_field ? ' ' : static_cast<unsigned char>(h[i]);
      ssum += in_field ? ' ' : static_cast<signed char>(h[i]);
    }
    if (stored != usum && stored != ssum)
      Fail(off, "header checksum mismatch (stored " + std::to_string(stored) + ", computed " + std::to_string(usum) +
                    "; not a tar archive or corrupted)");
    int64_t size = 0;
    if (!ParseTarNumber(h + kSize, kSizeLen, &size)) Fail(off, "malformed size field");
    const char type = h[kType];
    const int64_t data_off = off + kTarBlockSize;

    if (type == 'L' || type == 'K') {
      std::string s = ReadMeta(data_off, size, type == 'L' ? "GNU long name" : "GNU long link name", off);
      s.resize(strnlen(s.data(), s.size()));
      if (type == 'L') { long_name_ = std::move(s); has_long_name_ = true; }
      else { long_link_ = std::move(s); has_long_link_ = true; }
      offset_ = data_off + RoundUpBlock(size);
      continue;
    }
    if (type == 'x' || type == 'g' || type == 'X') {
      ParsePax(ReadMeta(data_off, size, "PAX header", off), off, type == 'g');
      offset_ = data_off + RoundUpBlock(size);
      continue;
    }

    TarEntry& e = *entry;
    e.type = type;
    e.header_offset = off;
    e.data_offset = data_off;
    e.size = pax_size_ >= 0 ? pax_size_ : size;
    if (has_pax_path_) {
      e.name = std::move(pax_path_);
    } else if (has_long_name_) {
      e.name = std::move(long_name_);
    } else {
      e.name = FieldString(h + kName, kNameLen);
      // POSIX ustar ("ustar\0") joins prefix and name; the old GNU format ("ustar  ") reuses the
      // prefix area for other fields.
      if (std::memcmp(h + kMagic, "ustar\0", 6) == 0) {
        std::string prefix = FieldString(h + kPrefix, kPrefixLen);
        if (!prefix.empty()) e.name = prefix + "/" + e.name;
      }
    }
    if (has_pax_linkpath_) e.linkname = std::move(pax_linkpath_);
    else if (has_long_link_) e.linkname = std::move(long_link_);
    else e.linkname = FieldString(h + kLink, kLinkLen);
    has_long_name_ = has_long_link_ = has_pax_path_ = has_pax_linkpath_ = false;
    pax_size_ = -1;

    int64_t skip = 0;
    if (HasData(type)) {
      if (e.size > src_.size() - data_off)
        Fail(off, "archive ends mid-member '" + e.name + "' (data needs " + std::to_string(e.size) + " bytes, " +
                      std::to_string(std::max<int64_t>(0, src_.size() - data_off)) + " left)");
      skip = RoundUpBlock(e.size);
    }
    offset_ = data_off + skip;
    return true;
  }
}

}  // namespace sluice
