#include "readers/nemo/nemo_manifest.h"
#include "readers/storage/url.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <simdjson.h>

#include <sluice/error.h>


namespace sluice {
namespace {

bool IsBlank(const char* p, size_t n) {
  for (size_t k = 0; k < n; ++k)
    if (p[k] != ' ' && p[k] != '\t' && p[k] != '\r' && p[k] != '\f' && p[k] != '\v') return false;
  return true;
}

std::string Seconds(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g s", v);
  return b;
}

[[noreturn]] void LineError(const std::string& manifest, int64_t line, const std::string& why) {
  throw Error("manifest '" + manifest + "' line " + std::to_string(line) + ": " + why);
}

// A number field into *out: false when the key is absent; an error when it is not a number.
bool NumberField(const simdjson::dom::object& obj, const char* key, double* out, const std::string& manifest,
                 int64_t line) {
  simdjson::dom::element e;
  if (obj[key].get(e) != simdjson::SUCCESS) return false;
  double v = 0;
  if (e.get_double().get(v) != simdjson::SUCCESS) LineError(manifest, line, std::string("\"") + key + "\" is not a number");
  *out = v;
  return true;
}

// `padded` holds the manifest followed by simdjson's padding, so each line can be parsed in place
// (the bytes after a line, then the padding, are readable).
std::vector<NemoManifestEntry> ParsePadded(const simdjson::padded_string& padded, const std::string& manifest,
                                           const NemoManifestFilter& filter) {
  std::vector<NemoManifestEntry> entries;
  simdjson::dom::parser parser;
  const char* p = padded.data();
  const size_t n = padded.size();
  size_t pos = n >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;  // UTF-8 byte-order mark
  int64_t line = 0;
  while (pos < n) {
    ++line;
    const void* nl = std::memchr(p + pos, '\n', n - pos);
    const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - p) : n;
    const size_t len = end - pos;
    const char* s = p + pos;
    pos = end + 1;
    if (IsBlank(s, len)) continue;
    simdjson::dom::element doc;
    if (const auto err = parser.parse(s, len, /*realloc_if_needed=*/false).get(doc); err != simdjson::SUCCESS)
      LineError(manifest, line, std::string("not valid JSON (") + simdjson::error_message(err) + ")");
    simdjson::dom::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) LineError(manifest, line, "not a JSON object");
    NemoManifestEntry entry;
    entry.line = line;
    simdjson::dom::element path;
    if (obj["audio_filepath"].get(path) != simdjson::SUCCESS) LineError(manifest, line, "no \"audio_filepath\"");
    std::string_view path_text;
    if (path.get_string().get(path_text) != simdjson::SUCCESS)
      LineError(manifest, line, "\"audio_filepath\" is not a string");
    if (path_text.empty()) LineError(manifest, line, "\"audio_filepath\" is empty");
    // DALI reads a negative duration as "to the end of the stream" (ProcessOffsetAndLength): a
    // manifest writing one is broken, and is refused here as a negative offset is.
    if (NumberField(obj, "duration", &entry.duration, manifest, line) && !(entry.duration >= 0))
      LineError(manifest, line, "\"duration\" is negative (" + Seconds(entry.duration) + ")");
    if (NumberField(obj, "offset", &entry.offset, manifest, line) && !(entry.offset >= 0))
      LineError(manifest, line, "\"offset\" is negative (" + Seconds(entry.offset) + ")");
    simdjson::dom::element text;
    if (obj["text"].get(text) == simdjson::SUCCESS) {
      std::string_view t;
      if (text.get_string().get(t) != simdjson::SUCCESS) LineError(manifest, line, "\"text\" is not a string");
      if (filter.read_text) entry.text = t;
    }
    // DALI's filter, on the manifest's duration (an entry without one has -1).
    if ((filter.max_duration > 0 && entry.duration > filter.max_duration) ||
        (filter.min_duration > 0 && entry.duration < filter.min_duration))
      continue;
    entry.audio_filepath = path_text;
    entries.push_back(std::move(entry));
  }
  return entries;
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::vector<NemoManifestEntry> ParseNemoManifest(std::string_view text, const std::string& manifest_name,
                                                 const NemoManifestFilter& filter) {
  return ParsePadded(simdjson::padded_string(text), manifest_name, filter);
}

std::vector<NemoManifestEntry> ReadNemoManifest(const std::string& path, const NemoManifestFilter& filter) {
  simdjson::padded_string text;
  if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS)
    throw Error("cannot read manifest '" + path + "': " + std::strerror(errno));
  return ParsePadded(text, path, filter);
}

std::string ResolveNemoAudioPath(const NemoManifestEntry& entry, const std::string& manifest_path) {
  const std::string& p = entry.audio_filepath;
  if (p[0] == '/') {
    if (IsRegularFile(p)) return p;
    LineError(manifest_path, entry.line, "audio file '" + p + "' not found (or not a regular file)");
  }
  const size_t slash = manifest_path.rfind('/');
  const std::string joined = JoinPath(slash == std::string::npos ? std::string() : manifest_path.substr(0, slash), p);
  if (IsRegularFile(joined)) return joined;
  if (IsRegularFile(p)) return p;
  LineError(manifest_path, entry.line,
            "audio file '" + p + "' not found (looked for '" + joined + "' next to the manifest and '" + p +
                "' in the working directory)");
}

}  // namespace sluice
