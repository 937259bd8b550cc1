#include "readers/mxnet/recordio_format.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include <sluice/error.h>

namespace sluice {

namespace {

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string At(const std::string& file, int64_t offset) {
  return "RecordIO file '" + file + "', record at byte offset " + std::to_string(offset) + ": ";
}

}  // namespace

std::vector<RecordIOEntry> ParseRecordIOIndex(std::string_view text, const std::string& index_name,
                                              int64_t file_size) {
  std::vector<int64_t> offsets;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto bad = [&](const std::string& why) {
      throw Error("index file '" + index_name + "', line " + std::to_string(line_no) + ": " + why);
    };
    auto skip_ws = [&](size_t i) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      return i;
    };
    size_t i = skip_ws(0);
    if (i == line.size()) continue;
    int64_t key = 0, offset = 0;
    auto r = std::from_chars(line.data() + i, line.data() + line.size(), key);
    if (r.ec != std::errc()) bad("expected \"key offset\"");
    i = skip_ws(static_cast<size_t>(r.ptr - line.data()));
    r = std::from_chars(line.data() + i, line.data() + line.size(), offset);
    if (r.ec != std::errc()) bad("expected \"key offset\"");
    if (skip_ws(static_cast<size_t>(r.ptr - line.data())) != line.size()) bad("unexpected text after the offset");
    if (offset < 0 || offset + 8 > file_size)
      bad("offset " + std::to_string(offset) + " lies outside the RecordIO file (" + std::to_string(file_size) +
          " bytes)");
    offsets.push_back(offset);
  }
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
  std::vector<RecordIOEntry> out(offsets.size());
  for (size_t k = 0; k < offsets.size(); ++k) {
    out[k].offset = offsets[k];
    out[k].size = (k + 1 < offsets.size() ? offsets[k + 1] : file_size) - offsets[k];
  }
  return out;
}

void ReadRecordIO(const uint8_t* rec, size_t size, const std::string& file, int64_t offset,
                  std::vector<uint8_t>& payload) {
  payload.clear();
  size_t pos = 0;
  uint32_t expect = 0;  // 0: a first part (cflag 0 or 1); else a continuation (2 or 3)
  for (;;) {
    if (size - pos < 8)
      throw Error(At(file, offset) + "truncated record header at byte " + std::to_string(offset + static_cast<int64_t>(pos)));
    if (Load32(rec + pos) != kRecordIOMagic)
      throw Error(At(file, offset) + "bad magic word at byte " + std::to_string(offset + static_cast<int64_t>(pos)) +
                  " (not a RecordIO record; is the index for this file?)");
    const uint32_t lrec = Load32(rec + pos + 4);
    const uint32_t cflag = lrec >> 29, len = lrec & ((1u << 29) - 1);
    pos += 8;
    if (len > size - pos)
      throw Error(At(file, offset) + "a part of " + std::to_string(len) + " bytes runs past the record's end (" +
                  std::to_string(size) + " bytes up to the next index entry or the end of the file)");
    if (expect == 0 ? (cflag != 0 && cflag != 1) : (cflag != 2 && cflag != 3))
      throw Error(At(file, offset) + "unexpected part flag " + std::to_string(cflag));
    if (expect != 0) {
      const uint8_t* m = reinterpret_cast<const uint8_t*>(&kRecordIOMagic);
      payload.insert(payload.end(), m, m + 4);
    }
    payload.insert(payload.end(), rec + pos, rec + pos + len);
    pos += (static_cast<size_t>(len) + 3) & ~size_t{3};
    if (cflag == 0 || cflag == 3) return;
    expect = 2;
    if (pos > size) pos = size;  // padding of a part cut at the end: the next header check fails
  }
}

ImageRecord ParseImageRecord(const uint8_t* payload, size_t size, const std::string& file, int64_t offset) {
  if (size < kImageRecordHeaderBytes)
    throw Error(At(file, offset) + "the record (" + std::to_string(size) +
                " bytes) is shorter than an image record header (24 bytes)");
  ImageRecord r;
  float label;
  std::memcpy(&r.flag, payload, 4);
  std::memcpy(&label, payload + 4, 4);
  std::memcpy(&r.id, payload + 8, 8);
  std::memcpy(&r.id2, payload + 16, 8);
  size_t pos = kImageRecordHeaderBytes;
  if (r.flag == 0) {
    r.labels.assign(1, label);
  } else {
    if (r.flag > (size - pos) / 4)
      throw Error(At(file, offset) + "the header's flag announces " + std::to_string(r.flag) +
                  " labels but the record holds " + std::to_string(size - pos) + " bytes after its header");
    r.labels.resize(r.flag);
    std::memcpy(r.labels.data(), payload + pos, 4 * static_cast<size_t>(r.flag));
    pos += 4 * static_cast<size_t>(r.flag);
  }
  r.image = payload + pos;
  r.image_size = size - pos;
  return r;
}

void AppendRecordIO(const uint8_t* data, size_t size, std::string& out) {
  auto put32 = [&](uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); };
  size_t from = 0;
  for (size_t i = 0; i + 4 <= size; i += 4) {
    if (Load32(data + i) != kRecordIOMagic) continue;
    put32(kRecordIOMagic);
    put32(((from == 0 ? 1u : 2u) << 29) | static_cast<uint32_t>(i - from));
    out.append(reinterpret_cast<const char*>(data + from), i - from);
    from = i + 4;  // the parts are 4-aligned pieces: no padding between them
  }
  put32(kRecordIOMagic);
  put32(((from != 0 ? 3u : 0u) << 29) | static_cast<uint32_t>(size - from));
  out.append(reinterpret_cast<const char*>(data + from), size - from);
  out.append((4 - (size - from) % 4) % 4, '\0');
}

}  // namespace sluice
