// file_root listings of an S3 prefix: readers.file's class folders and readers.numpy's tree, with
// the same order, labels and paths as the local listings (file_root_index.h). S3 has no folders:
// a "class folder" is a common key prefix, so an empty class folder does not exist (and takes no
// label) as it would on a disk.
#pragma once
#include <string>
#include <vector>

#include "readers/common/file_label_list.h"

namespace sluice {

// IndexFileRoot for root = "s3://bucket/prefix".
FileLabelList IndexRemoteFileRoot(const std::string& root, const std::vector<std::string>& filters,
                                  bool case_sensitive);
// ListFileTree for root = "s3://bucket/prefix".
std::vector<std::string> ListRemoteFileTree(const std::string& root, const std::vector<std::string>& filters,
                                            bool case_sensitive);

}  // namespace sluice
