// A dataset given as a list of paths: the text of a `file_list` (with labels for readers.file,
// paths only for readers.numpy and readers.fits) and `files` with `labels`. Listing a file_root is
// file_root_index.h's; joining paths is storage/url.h's.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "readers/common/file_label_list.h"

namespace sluice {

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

}  // namespace sluice
