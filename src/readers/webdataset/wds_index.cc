#include "readers/webdataset/wds_index.h"

#include <algorithm>
#include <charconv>

#include <sluice/error.h>

namespace sluice {

MemberName SplitMemberName(std::string_view name) {
  MemberName m;
  const size_t slash = name.rfind('/');
  const size_t base = slash == std::string_view::npos ? 0 : slash + 1;
  if (base >= name.size() || name[base] == '.') return m;  // empty or hidden base name
  const size_t dot = name.find('.', base);
  if (dot == std::string_view::npos) return m;
  m.key = name.substr(0, dot);
  m.ext = name.substr(dot + 1);
  m.is_component = true;
  return m;
}

void WdsSampleGrouper::Add(const TarEntry& e) {
  if (!e.is_regular()) return;
  const MemberName m = SplitMemberName(e.name);
  if (!m.is_component) return;
  if (samples_.empty() || samples_.back().key != m.key) {
    samples_.emplace_back();
    samples_.back().key = std::string(m.key);
  }
  WdsComponent c;
  c.ext = std::string(m.ext);
  c.offset = e.data_offset;
  c.size = e.size;
  c.member = e.name;
  samples_.back().components.push_back(std::move(c));
}

std::vector<WdsSample> ScanTarSamples(const ByteSource& tar, const std::function<void(int64_t, int64_t)>& progress) {
  TarReader reader(tar);
  WdsSampleGrouper grouper;
  TarEntry e;
  int64_t members = 0;
  while (reader.Next(&e)) {
    grouper.Add(e);
    if (progress && ++members % 4096 == 0) progress(reader.offset(), tar.size());
  }
  if (progress) progress(tar.size(), tar.size());
  return std::move(grouper.samples());
}

namespace {

bool HasSpace(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; });
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

void Split(std::string_view line, std::vector<std::string_view>* out) {
  out->clear();
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !IsSpace(line[j])) ++j;
    if (j > i) out->push_back(line.substr(i, j - i));
    i = j;
  }
}

bool ParseU64(std::string_view s, int64_t* v) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && *v >= 0;
}

}  // namespace

std::string WriteWdsIndex(const std::vector<WdsSample>& samples) {
  std::string out = "v1.2 " + std::to_string(samples.size()) + "\n";
  for (const WdsSample& s : samples) {
    bool first = true;
    for (const WdsComponent& c : s.components) {
      if (HasSpace(c.member) || HasSpace(c.ext))
        throw Error("member name '" + c.member + "' contains whitespace, which index format v1.2 cannot represent");
      if (!first) out += ' ';
      first = false;
      out += c.ext;
      out += ' ';
      out += std::to_string(c.offset);
      out += ' ';
      out += std::to_string(c.size);
      out += ' ';
      out += c.member;
    }
    out += '\n';
  }
  return out;
}

std::vector<WdsSample> ParseWdsIndex(std::string_view text, const std::string& index_name, int64_t archive_size) {
  auto fail = [&](int line, const std::string& msg) -> void {
    throw Error("webdataset index " + index_name + ", line " + std::to_string(line) + ": " + msg);
  };
  std::vector<std::string_view> tok;
  size_t pos = 0;
  int line_no = 0;
  auto next_line = [&](std::string_view* line) {
    if (pos >= text.size()) return false;
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    *line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    return true;
  };

  std::string_view line;
  if (!next_line(&line)) fail(1, "empty file (expected the version signature 'v1.2 <num_samples>')");
  Split(line, &tok);
  if (tok.empty() || tok[0].empty() || tok[0][0] != 'v')
    fail(1, "no version signature (expected 'v1.2 <num_samples>'; regenerate the index with sluice-wds2idx)");
  int fields = 0;
  if (tok[0] == "v1.2") fields = 4;
  else if (tok[0] == "v1.1") fields = 3;
  else fail(1, "unsupported index version '" + std::string(tok[0]) + "' (supported: v1.1, v1.2)");
  int64_t declared = 0;
  if (tok.size() != 2 || !ParseU64(tok[1], &declared)) fail(1, "expected '" + std::string(tok[0]) + " <num_samples>'");

  std::vector<WdsSample> samples;
  samples.reserve(static_cast<size_t>(std::min<int64_t>(declared, 1 << 20)));
  while (next_line(&line)) {
    Split(line, &tok);
    if (tok.empty()) continue;  // blank lines (e.g. a trailing one) are allowed
    if (static_cast<int64_t>(samples.size()) >= declared)
      fail(line_no, "more samples than the " + std::to_string(declared) + " declared on line 1");
    if (tok.size() % static_cast<size_t>(fields) != 0)
      fail(line_no, "expected groups of " + std::to_string(fields) + " fields (" +
                        (fields == 4 ? "ext offset size name" : "ext offset size") + "), got " +
                        std::to_string(tok.size()) + " fields");
    WdsSample s;
    for (size_t i = 0; i < tok.size(); i += static_cast<size_t>(fields)) {
      WdsComponent c;
      c.ext = std::string(tok[i]);
      c.line = line_no;
      if (!ParseU64(tok[i + 1], &c.offset)) fail(line_no, "offset '" + std::string(tok[i + 1]) + "' is not a number");
      if (!ParseU64(tok[i + 2], &c.size)) fail(line_no, "size '" + std::string(tok[i + 2]) + "' is not a number");
      if (fields == 4) c.member = std::string(tok[i + 3]);
      if (c.offset % kTarBlockSize != 0)
        fail(line_no, "offset " + std::to_string(c.offset) + " of component '" + c.ext +
                          "' is not a multiple of the tar block size (512)");
      if (archive_size >= 0 && (c.offset > archive_size || c.size > archive_size - c.offset))
        fail(line_no, "component '" + c.ext + "' at offset " + std::to_string(c.offset) + " of " +
                          std::to_string(c.size) + " bytes lies outside the archive (" + std::to_string(archive_size) +
                          " bytes)");
      s.components.push_back(std::move(c));
    }
    if (fields == 4) {
      const MemberName m = SplitMemberName(s.components[0].member);
      s.key = m.is_component ? std::string(m.key) : s.components[0].member;
    }
    samples.push_back(std::move(s));
  }
  if (static_cast<int64_t>(samples.size()) != declared)
    fail(line_no, "the index declares " + std::to_string(declared) + " samples but lists " +
                      std::to_string(samples.size()));

  // Components must not overlap (each is a distinct member's data).
  std::vector<const WdsComponent*> all;
  for (const auto& s : samples)
    for (const auto& c : s.components) all.push_back(&c);
  std::sort(all.begin(), all.end(), [](const WdsComponent* a, const WdsComponent* b) {
    return a->offset != b->offset ? a->offset < b->offset : a->size < b->size;
  });
  for (size_t i = 1; i < all.size(); ++i) {
    const WdsComponent* a = all[i - 1];
    const WdsComponent* b = all[i];
    if (b->offset == a->offset || b->offset - a->offset < a->size)  // sorted: no overflow
      fail(b->line, "component '" + b->ext + "' at offset " + std::to_string(b->offset) +
                        " overlaps component '" + a->ext + "' at offset " + std::to_string(a->offset) + " (line " +
                        std::to_string(a->line) + ")");
  }
  return samples;
}

}  // namespace sluice
