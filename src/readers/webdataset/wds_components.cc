#include "readers/webdataset/wds_components.h"

#include <sluice/error.h>

#include "readers/common/reader_log.h"

namespace sluice {

namespace {

std::string Lower(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return r;
}

bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

MissingComponent ParseMissingComponentBehavior(const std::string& value) {
  const std::string v = Lower(value);
  if (v.empty() || v == "empty") return MissingComponent::kEmpty;
  if (v == "skip") return MissingComponent::kSkip;
  if (v == "error") return MissingComponent::kError;
  throw Error("unknown missing_component_behavior '" + value + "' (expected \"empty\", \"skip\" or \"error\")");
}

ExtMatcher::ExtMatcher(const std::vector<std::string>& ext, bool case_sensitive)
    : specs_(ext), case_sensitive_(case_sensitive) {
  if (ext.empty()) throw Error("ext must name at least one extension set (one per output)");
  for (const std::string& e : ext) {
    std::vector<std::string> alts;
    size_t pos = 0;
    for (;;) {
      const size_t semi = e.find(';', pos);
      std::string a = e.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
      if (!a.empty()) alts.push_back(std::move(a));
      if (semi == std::string::npos) break;
      pos = semi + 1;
    }
    if (alts.empty()) throw Error("ext entry '" + e + "' names no extension");
    alternatives_.push_back(std::move(alts));
  }
}

bool ExtMatcher::Matches(int output, std::string_view ext) const {
  for (const std::string& a : alternatives_[static_cast<size_t>(output)])
    if (case_sensitive_ ? a == ext : EqualNoCase(a, ext)) return true;
  return false;
}

void ResolveWdsSamples(const std::vector<WdsSample>& samples, int32_t archive, const std::string& archive_path,
                       const ExtMatcher& matcher, const WdsResolveOptions& options, WdsDataset* out, bool* warned) {
  const int n_out = matcher.num_outputs();
  out->num_outputs = n_out;
  std::vector<int> match(static_cast<size_t>(n_out));
  for (size_t si = 0; si < samples.size(); ++si) {
    const WdsSample& s = samples[si];
    std::string key = s.key;
    if (key.empty()) key.append("#").append(std::to_string(si));  // v1.1 indices have no names
    bool missing = false;
    for (int o = 0; o < n_out; ++o) {
      int found = -1;
      for (size_t ci = 0; ci < s.components.size(); ++ci) {
        if (!matcher.Matches(o, s.components[ci].ext)) continue;
        if (found < 0) {
          found = static_cast<int>(ci);
        } else if (!*warned) {
          *warned = true;
          ReaderWarning("readers.webdataset: sample '" + key + "' in " + archive_path + " has several components for '" +
                        matcher.spec(o) + "' ('" + s.components[static_cast<size_t>(found)].ext + "' and '" +
                        s.components[ci].ext + "'); the first one is used (reported once)");
        }
      }
      match[static_cast<size_t>(o)] = found;
      if (found < 0) {
        missing = true;
        if (options.missing == MissingComponent::kError)
          throw Error("sample '" + key + "' in " + archive_path + " has no component with extension '" +
                      matcher.spec(o) + "' (missing_component_behavior=\"error\")");
      }
    }
    if (missing && options.missing == MissingComponent::kSkip) continue;
    for (int o = 0; o < n_out; ++o) {
      const int ci = match[static_cast<size_t>(o)];
      if (ci < 0) {
        WdsComponent none;
        none.offset = -1;
        none.ext = matcher.spec(o);
        out->components.push_back(std::move(none));
        continue;
      }
      const WdsComponent& c = s.components[static_cast<size_t>(ci)];
      const DType dt = o < static_cast<int>(options.dtypes.size()) ? options.dtypes[static_cast<size_t>(o)] : DType::kUInt8;
      if (c.size % static_cast<int64_t>(SizeOf(dt)) != 0)
        throw Error("component '" + (c.member.empty() ? key + "." + c.ext : c.member) + "' in " + archive_path + " has " +
                    std::to_string(c.size) + " bytes, not a multiple of the size of " + std::string(ToString(dt)) +
                    " (" + std::to_string(SizeOf(dt)) + " bytes) requested by dtypes for output " + std::to_string(o));
      out->components.push_back(c);
    }
    out->archive.push_back(archive);
    out->key.push_back(s.key);
  }
}

}  // namespace sluice
