// experimental.readers.fits: DALI's reader of FITS files (fits_image.h, CFITSIO): one output per
// entry of hdu_indices, each the image of that HDU in its own type (or checked against dtypes)
// and shape (C order).
//
// The dataset is file_root (files matching file_filter, in subfolders too), a file_list (one path
// per line) or files, as readers.numpy's (FileDatasetArgs). Each file is read whole (local or
// remote, storage.h) and handed to CFITSIO as a memory file: a file changed or truncated on disk
// is read as it is when its turn comes, and CFITSIO never maps it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <sluice/dtype.h>

#include "readers/common/file_dataset_args.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class FitsReader final : public ReaderOperator {
 public:
  explicit FitsReader(const OpSpec& spec);
  ~FitsReader() override;

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return static_cast<int>(hdus_.size()); }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override { dataset_.AdjustSequencer(s); }

 private:
  const FileDatasetArgs dataset_;
  const std::string filter_;
  std::vector<int> hdus_;
  std::vector<std::optional<DType>> dtypes_;  // per output; empty optional: the HDU's own type
  std::vector<std::string> files_;
  // Loader-thread scratch: [output][sample] pixels.
  std::vector<std::vector<std::vector<uint8_t>>> pixels_;
};

int FitsNumOutputs(const OpSpec& spec);

}  // namespace sluice
