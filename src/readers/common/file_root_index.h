// Listing a file_root, with one readdir pass per folder and no stat per file: readers.file's class
// folders (ListFileRoot's contract) at ImageNet scale, listed in parallel and stored flat
// (FileLabelList), and readers.numpy's whole tree.
//
// Where the time went before (1,000 folders x 1,281 files): a stat per file (path walk from "/"
// each time), 12 fnmatch calls per file in a UTF-8 locale, a heap-allocated string per relative
// and per full path, and one sort of 1.28M strings. Now: the entry's d_type says what it is (a
// stat only for symbolic links, file systems that give no type, and one entry per folder checking
// that the folder is searchable), FileNameFilter matches the default patterns without fnmatch,
// names are sorted per folder (the order of "class/name" across classes is the order of
// "class/" alone), and each folder's names become one block of the list as they are.
#pragma once
#include <string>
#include <vector>

#include "readers/common/file_label_list.h"

namespace sluice {

// ListFileRoot's list (same files, order, labels and errors), with prefix() = file_root + "/" and
// rest(i) = "class/file". Class folders are listed on up to `max_threads` threads (0: one per
// CPU this process may run on, at most 8); the result does not depend on the thread count.
FileLabelList IndexFileRoot(const std::string& root, const std::vector<std::string>& filters, bool case_sensitive,
                            int max_threads = 0);

// DALI's traversal: the subfolders of `root` sorted in byte order are the classes 0..C-1 (every
// subfolder counts, even one without matching files); the regular files (or links to them)
// directly inside each class folder whose names match a filter are the samples; the list is sorted
// by relative path "class/file". Files directly in `root` are ignored. Throws sluice::Error naming
// the folder if it cannot be read or no file matches. IndexFileRoot's list as a vector.
std::vector<FileLabel> ListFileRoot(const std::string& root, const std::vector<std::string>& filters,
                                    bool case_sensitive);

// readers.numpy's traversal: the regular files (or links to them) below `root`, in subfolders at
// any depth (links to folders followed), whose names match a filter (FileNameFilter's rules);
// full paths (root joined with the relative path as JoinPath does) sorted by relative path in byte
// order, empty if none matches. Throws naming the folder if root or a subfolder cannot be read, or
// if a link leads back to a folder that contains it.
std::vector<std::string> ListFileTree(const std::string& root, const std::vector<std::string>& filters,
                                      bool case_sensitive);

}  // namespace sluice
