// readers.sequence (legacy name sequence_reader): DALI's reader of frame sequences stored as image
// files, one folder per stream under file_root (readers/video/frame_sequences.h says which files and
// which sequences). Each sample is one sequence: sequence_length frames, `stride` apart, decoded
// into one "FHWC" uint8 tensor (C from image_type).
//
// Two parts, as readers.video: SequenceLoader, a ReaderOperator (sharding, shuffling, padding,
// prefetching, checkpoint state, on_error for files that cannot be read) whose loader thread reads
// each sequence's encoded frames into one buffer; and SequenceReader, the operator the pipeline
// runs, which decodes every frame of the batch on the executor's threads with the image decoding
// kernels (kernels/decode), the frames of one sequence in parallel too.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kernels/decode/image_decoder.h"
#include "readers/video/frame_sequences.h"
#include "readers/common/loader_backed_reader.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class SequenceLoader : public ReaderOperator {
 public:
  explicit SequenceLoader(const OpSpec& spec);
  ~SequenceLoader() override;

  // Valid once initialised (after construction, or the first batch with lazy_init).
  const FrameSequences& sequences() const { return seqs_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override { return "file_root '" + root_ + "'"; }
  // Output 0: the sequence's frame files back to back (uint8, 1-D); output 1: where each frame
  // begins in it, and its end (int64, sequence_length + 1 values); output 2: the sequence's number
  // (int64 scalar). Each sample's source is its first frame's path.
  int NumOutputs() const override { return 3; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) override;

 private:
  const std::string root_;
  const int64_t length_, step_, stride_;
  FrameSequences seqs_;
  // Loader-thread scratch, reused every batch.
  std::vector<TensorShape> byte_shapes_, offset_shapes_, index_shapes_;
  std::vector<int64_t> sizes_;
  std::vector<char> bad_;
};

class SequenceReader final : public LoaderBackedReader<SequenceLoader> {
 public:
  explicit SequenceReader(const OpSpec& spec);
  ~SequenceReader() override;

  std::vector<OutputDesc> Setup(Workspace& ws) override;
  void Run(Workspace& ws) override;

 private:
  struct Frame {
    kernels::ImageInfo info;
    kernels::DecodePlan plan;
  };
  // Runs fn(sample, frame) for every frame of the batch on the pool, but those of samples that
  // failed already. A failure names the frame's file; with on_error="replace" it becomes its
  // sample's error instead (the first failing frame's).
  void ForEachFrame(Workspace& ws, const std::function<void(int, int)>& fn);
  std::span<const uint8_t> FrameBytes(int sample, int frame) const;
  const std::string& FramePath(int sample, int frame) const;

  const int64_t length_;
  const bool replace_on_error_;
  kernels::DecodeParams params_;
  TensorList bytes_, offsets_, index_;
  std::vector<Frame> frames_;                // sample * length + frame
  std::vector<std::string> errors_;          // per sample; non-empty: failed (on_error="replace")
  std::vector<std::string> frame_errors_;    // per frame, during ForEachFrame
};

}  // namespace sluice
