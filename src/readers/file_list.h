// The readers' dataset descriptions: listing a file_root, parsing a file_list (with labels for
// readers.file, paths only for readers.numpy), files + labels.
// Pure functions over the file system; no reading of file contents.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sluice {

struct FileLabel {
  std::string path;  // as opened (joined with file_root or the list's folder)
  int32_t label = 0;
  bool operator==(const FileLabel& o) const { return path == o.path && label == o.label; }
};

// DALI's default file_filters.
std::vector<std::string> DefaultFileFilters();

// fnmatch-style glob match of a file name against any of `filters` (FNM_CASEFOLD unless
// case_sensitive).
bool MatchesAnyFilter(const std::string& name, const std::vector<std::string>& filters, bool case_sensitive);

// DALI's traversal: the subfolders of `root` sorted in byte order are the classes 0..C-1 (every
// subfolder counts, even one without matching files); the regular files (or links to them)
// directly inside each class folder whose names match a filter are the samples; the list is sorted
// by relative path "class/file". Files directly in `root` are ignored. Throws sluice::Error naming
// the folder if it cannot be read or no file matches. (IndexFileRoot in file_root_index.h is the
// same list stored flat; this is it as a vector.)
std::vector<FileLabel> ListFileRoot(const std::string& root, const std::vector<std::string>& filters,
                                    bool case_sensitive);

// Parses file_list text: one "path label" per line, split at the LAST whitespace run so paths may
// contain spaces; blank lines skipped; relative paths are joined to `base_dir` (absolute ones kept).
// A line without an integer label throws sluice::Error naming `list_name` and the line number.
std::vector<FileLabel> ParseFileList(std::string_view text, const std::string& list_name, const std::string& base_dir);

// Reads and parses the list file: paths are relative to file_root if given, else to the list's
// folder. Throws naming the list if it cannot be read or lists no file.
std::vector<FileLabel> ReadFileList(const std::string& list_path, const std::string& file_root);

// A file_list without labels (readers.numpy's): each line that is not blank is one path (spaces
// inside it kept, white space at either end removed), joined to `base_dir` like ParseFileList's.
std::vector<std::string> ParsePathList(std::string_view text, const std::string& base_dir);
// Reads and parses such a list, with ReadFileList's base folder and errors.
std::vector<std::string> ReadPathList(const std::string& list_path, const std::string& file_root);

// `files` joined to file_root (if given) with `labels` (same length) or their index as label.
std::vector<FileLabel> FilesWithLabels(const std::vector<std::string>& files, const std::vector<int64_t>& labels,
                                       const std::string& file_root);

// Joins a relative path to a folder ("" keeps the path as is; absolute paths are kept).
std::string JoinPath(const std::string& dir, const std::string& path);

}  // namespace sluice
