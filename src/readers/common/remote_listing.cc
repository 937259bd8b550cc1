#include "readers/common/remote_listing.h"

#include <map>

#include <sluice/error.h>

#include "readers/common/file_name_filter.h"
#include "readers/storage/storage.h"

namespace sluice {

namespace {

std::string WithSlash(std::string root) {
  if (root.empty() || root.back() != '/') root += '/';
  return root;
}

std::string BaseName(const std::string& rel) {
  const size_t slash = rel.rfind('/');
  return slash == std::string::npos ? rel : rel.substr(slash + 1);
}

}  // namespace

FileLabelList IndexRemoteFileRoot(const std::string& root, const std::vector<std::string>& filters,
                                  bool case_sensitive) {
  const std::string prefix = WithSlash(root);
  std::map<std::string, std::vector<std::string>> classes;  // byte order, as the local listing
  for (const std::string& path : ListRemoteTree(root)) {
    const std::string rel = path.substr(prefix.size());
    const size_t slash = rel.find('/');
    if (slash == std::string::npos || rel.find('/', slash + 1) != std::string::npos) continue;  // not class/file
    std::vector<std::string>& files = classes[rel.substr(0, slash)];
    if (MatchesAnyFilter(rel.substr(slash + 1), filters, case_sensitive)) files.push_back(rel);
  }
  FileLabelList out(prefix);
  int32_t label = 0;
  for (const auto& [cls, files] : classes) {
    for (const std::string& rel : files) out.Add(rel, label);  // keys are listed sorted
    ++label;
  }
  if (out.empty())
    throw Error("no files matching file_filters in the class folders of file_root '" + root + "' (" +
                std::to_string(classes.size()) + " class folders)");
  return out;
}

std::vector<std::string> ListRemoteFileTree(const std::string& root, const std::vector<std::string>& filters,
                                            bool case_sensitive) {
  const std::string prefix = WithSlash(root);
  std::vector<std::string> out;
  for (const std::string& path : ListRemoteTree(root))
    if (MatchesAnyFilter(BaseName(path.substr(prefix.size())), filters, case_sensitive)) out.push_back(path);
  return out;
}

}  // namespace sluice
