#include "readers/common/file_list.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <sluice/error.h>

#include "readers/storage/storage.h"
#include "readers/storage/url.h"

namespace sluice {

namespace {

bool IsListSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Calls fn(line_number, line) for every line of a file list that is not blank, with the white
// space at both ends of the line removed (line numbers count from 1, blank lines included).
template <typename LineFn>
void ForEachListLine(std::string_view text, LineFn&& fn) {
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    while (!line.empty() && IsListSpace(line.back())) line.remove_suffix(1);
    while (!line.empty() && IsListSpace(line.front())) line.remove_prefix(1);
    if (!line.empty()) fn(line_no, line);
  }
}

std::string ReadListText(const std::string& list_path) {
  if (IsRemotePath(list_path)) {
    try {
      return ReadWholeFile(list_path);
    } catch (const Error& e) {
      throw Error("cannot open file_list: " + e.message());
    }
  }
  std::ifstream f(list_path, std::ios::binary);
  if (!f) throw Error("cannot open file_list '" + list_path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The folder a list's relative paths are joined to: file_root if given, else the list's folder.
std::string ListBaseDir(const std::string& list_path, const std::string& file_root) {
  if (!file_root.empty()) return file_root;
  return ParentOfPath(list_path);
}

}  // namespace

std::vector<FileLabel> ParseFileList(std::string_view text, const std::string& list_name, const std::string& base_dir) {
  std::vector<FileLabel> out;
  ForEachListLine(text, [&](int line_no, std::string_view line) {
    size_t sep = line.size();
    while (sep > 0 && !IsListSpace(line[sep - 1])) --sep;
    const std::string_view label_text = line.substr(sep);
    std::string_view path = line.substr(0, sep);
    while (!path.empty() && IsListSpace(path.back())) path.remove_suffix(1);
    int64_t label = 0;
    auto [p, ec] = std::from_chars(label_text.data(), label_text.data() + label_text.size(), label);
    const bool ok = !path.empty() && ec == std::errc() && p == label_text.data() + label_text.size() &&
                    label >= INT32_MIN && label <= INT32_MAX;
    if (!ok)
      throw Error("file_list " + list_name + ", line " + std::to_string(line_no) +
                  ": expected '<path> <integer label>', got '" + std::string(line) + "'");
    out.push_back({JoinPath(base_dir, std::string(path)), static_cast<int32_t>(label)});
  });
  return out;
}

std::vector<std::string> ParsePathList(std::string_view text, const std::string& base_dir) {
  std::vector<std::string> out;
  ForEachListLine(text, [&](int, std::string_view line) { out.push_back(JoinPath(base_dir, std::string(line))); });
  return out;
}

std::vector<FileLabel> ReadFileList(const std::string& list_path, const std::string& file_root) {
  std::vector<FileLabel> out = ParseFileList(ReadListText(list_path), list_path, ListBaseDir(list_path, file_root));
  if (out.empty()) throw Error("file_list '" + list_path + "' lists no files");
  return out;
}

std::vector<std::string> ReadPathList(const std::string& list_path, const std::string& file_root) {
  std::vector<std::string> out = ParsePathList(ReadListText(list_path), ListBaseDir(list_path, file_root));
  if (out.empty()) throw Error("file_list '" + list_path + "' lists no files");
  return out;
}

std::vector<FileLabel> FilesWithLabels(const std::vector<std::string>& files, const std::vector<int64_t>& labels,
                                       const std::string& file_root) {
  if (!labels.empty() && labels.size() != files.size())
    throw Error("labels has " + std::to_string(labels.size()) + " entries but files has " + std::to_string(files.size()));
  std::vector<FileLabel> out;
  out.reserve(files.size());
  for (size_t i = 0; i < files.size(); ++i)
    out.push_back({JoinPath(file_root, files[i]), static_cast<int32_t>(labels.empty() ? static_cast<int64_t>(i) : labels[i])});
  return out;
}

}  // namespace sluice
