#include "pipeline/replaced_row_log.h"

#include <algorithm>
#include <cstring>

namespace sluice {
namespace {

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(v));
}
void PutString(std::string& out, const std::string& s) {
  Put<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}
template <typename T>
T Get(const char*& p) {
  T v;
  std::memcpy(&v, p, sizeof(v));
  p += sizeof(v);
  return v;
}
std::string GetString(const char*& p) {
  const uint32_t n = Get<uint32_t>(p);
  std::string s(p, n);
  p += n;
  return s;
}

}  // namespace

void ReplacedRowLog::Add(const SampleErrorRecord& r) {
  if (capacity_ == 0) return;
  if (chunks_.empty() || chunks_.back().bytes.size() >= kChunkBytes) {
    chunks_.emplace_back();
    chunks_.back().bytes.reserve(kChunkBytes + 1024);
  }
  std::string& out = chunks_.back().bytes;
  Put<int64_t>(out, r.iteration);
  Put<int64_t>(out, r.offset);
  Put<int32_t>(out, r.sample);
  Put<int32_t>(out, r.replaced_by);
  for (const std::string* s : {&r.op, &r.source, &r.path, &r.member, &r.error}) PutString(out, *s);
  ++chunks_.back().count;
  ++total_;
  while (total_ - chunks_.front().count >= capacity_) {
    total_ -= chunks_.front().count;
    chunks_.pop_front();
  }
}

std::vector<SampleErrorRecord> ReplacedRowLog::Records() const {
  std::vector<SampleErrorRecord> out;
  out.reserve(total_);
  for (const Chunk& c : chunks_) {
    const char* p = c.bytes.data();
    for (size_t i = 0; i < c.count; ++i) {
      SampleErrorRecord r;
      r.iteration = Get<int64_t>(p);
      r.offset = Get<int64_t>(p);
      r.sample = Get<int32_t>(p);
      r.replaced_by = Get<int32_t>(p);
      r.op = GetString(p);
      r.source = GetString(p);
      r.path = GetString(p);
      r.member = GetString(p);
      r.error = GetString(p);
      out.push_back(std::move(r));
    }
  }
  if (out.size() > capacity_) out.erase(out.begin(), out.end() - static_cast<std::ptrdiff_t>(capacity_));
  return out;
}

size_t ReplacedRowLog::size() const { return std::min(total_, capacity_); }

}  // namespace sluice
