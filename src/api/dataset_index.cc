// The public index writers (sluice/dataset_index.h) over the readers' own parsers, so that what
// `sluice wds2idx`, sluice-wds2idx and sluice.tfrecord.write_index write is what the readers read.
#include <sluice/dataset_index.h>

#include "readers/storage/storage.h"
#include "readers/tfrecord/tfrecord_format.h"
#include "readers/webdataset/wds_index.h"

namespace sluice {

std::string WebDatasetIndex(const std::string& tar_path, const std::function<void(int64_t, int64_t)>& progress) {
  // Local files are read with pread (headers only; no mapping of a large archive); remote objects
  // in blocks through RemoteSource's cache.
  const std::unique_ptr<ByteSource> tar = OpenByteSource(tar_path, /*use_mmap=*/false, /*read_ahead=*/false);
  return WriteWdsIndex(ScanTarSamples(*tar, progress));
}

std::string TfRecordIndex(const std::string& path, bool check_data) {
  const std::unique_ptr<ByteSource> file = OpenByteSource(path, /*use_mmap=*/false, /*read_ahead=*/false);
  return WriteTfRecordIndex(ScanTfRecords(*file, check_data));
}

}  // namespace sluice
