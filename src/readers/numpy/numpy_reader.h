// readers.numpy: DALI's NumPy reader on the CPU. Lists .npy files (file_root + file_filter,
// recursively; file_list; files) and outputs each array with its dtype and shape (Fortran-order
// arrays transposed to C order, as DALI does).
//
// Two parts, because the ROI arguments are per-sample argument inputs that the loader thread
// cannot see: NumpyLoader (a ReaderOperator: sharding, shuffling, padding, prefetching, checkpoint
// state) and NumpyReader, the operator the pipeline runs, which forwards to it. Without a ROI the
// loader thread reads whole arrays. With a ROI the loader only parses the headers (its output is a
// descriptor per sample), and NumpyReader's Setup computes the ROI per sample and its Run reads only
// the ROI's bytes on the executor's threads, with one pread per contiguous run of the ROI (the
// innermost axis in file order, merged with the following axes when the ROI spans them whole).
// The dataset arguments are readers.file's (file_dataset_args.h); the list comes from file_list.h
// (file_list, files) or file_root_index.h (file_root: the whole tree, names matching file_filter);
// the arrays are read by npy_array.h.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "readers/common/file_dataset_args.h"
#include "readers/numpy/npy_header.h"
#include "readers/common/loader_backed_reader.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class NumpyLoader : public ReaderOperator {
 public:
  NumpyLoader(const OpSpec& spec, bool headers_only);
  ~NumpyLoader() override;
  const std::vector<std::string>& files() const { return files_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return 1; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override;

 private:
  bool headers_only_;
  const FileDatasetArgs dataset_;
  std::string filter_;
  std::vector<std::string> files_;
  std::vector<char> scratch_;
};

class NumpyReader : public LoaderBackedReader<NumpyLoader> {
 public:
  explicit NumpyReader(const OpSpec& spec);
  ~NumpyReader() override;

  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override;

 private:
  struct Item {
    std::string path;
    NpyHeader header;
    std::vector<int64_t> anchor, out_shape;  // the ROI in C-order coordinates
  };

  bool roi_ = false;
  std::string policy_;
  double fill_ = 0;
  std::vector<int> roi_axes_;
  std::vector<Item> items_;
  std::vector<std::vector<char>> scratch_;  // per thread
};

}  // namespace sluice
