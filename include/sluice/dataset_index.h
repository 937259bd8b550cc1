// Index files of datasets, in the formats the readers read and DALI's tools write. Part of the
// public API (the api layer implements it over the readers' own parsers).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

namespace sluice {

// The WebDataset index (DALI's wds2idx, format v1.2: one line per sample) of a tar archive, as
// text. `tar_path` is a local path, an s3:// object or an http(s):// URL. Reads headers only.
// `progress`, when set, is called as progress(bytes_scanned, archive_size) every 4,096 members and
// at the end, on the calling thread. Throws sluice::Error for an unreadable or malformed archive,
// or a member name the format cannot represent.
std::string WebDatasetIndex(const std::string& tar_path,
                            const std::function<void(int64_t, int64_t)>& progress = {});

// The index of a TFRecord file in DALI's tfrecord2idx format ("offset size\n" per record), as
// text. With check_data every record's CRCs are checked as it is scanned. Throws sluice::Error
// naming the file and the byte offset of a bad CRC or a truncated record.
std::string TfRecordIndex(const std::string& path, bool check_data = true);

}  // namespace sluice
