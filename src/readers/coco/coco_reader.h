// readers.coco (legacy coco_reader / COCOReader): DALI's COCO reader (dali/operators/reader/
// coco_reader_op.cc). The dataset is the annotation file's images (coco_annotations.h: DALI's
// order and filters, every inconsistency an error naming the file and annotation id) or a folder
// of preprocessed annotations; the loader thread (ReaderOperator: sharding, shuffling, padding,
// prefetching, checkpoints) reads each image's encoded bytes from file_root and copies its
// annotations; pixelwise masks are rasterised there too (kernels/detection/coco_mask.h).
//
// Outputs: images (encoded bytes, uint8 1-D), bboxes (float [M, 4]), labels (int32 [M]), then
// polygons (int32 [P, 3]: object, first vertex, end vertex) and vertices (float [V, 2]) with
// polygon_masks, or pixelwise_masks (int32 [H, W, 1], HWC) with pixelwise_masks, then image_ids
// (int32 [1]) with image_ids.
#pragma once
#include <string>
#include <vector>

#include "readers/coco/coco_annotations.h"
#include "readers/common/reader_operator.h"

namespace sluice {

class CocoReader final : public ReaderOperator {
 public:
  explicit CocoReader(const OpSpec& spec);
  ~CocoReader() override;

  const CocoDataset& dataset() const { return dataset_; }

 protected:
  int64_t InitDataset() override;
  std::string DatasetName() const override;
  int NumOutputs() const override { return num_outputs_; }
  void ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs, const MemoryConfig& cfg) override;
  void PresizeOutputs(std::vector<TensorList>& outs, int batch_size, const MemoryConfig& cfg) override;
  void AdjustSequencer(SequencerOptions& s) const override;

 private:
  // Writes sample `s`'s masks into `mask` (height x width int32, zeroed first).
  void PaintMasks(int64_t s, int32_t* mask) const;

  const std::string file_root_, annotations_file_, preprocessed_;
  const bool polygon_masks_, legacy_masks_, pixelwise_masks_, image_ids_, shuffle_after_epoch_;
  const bool save_, has_images_;
  const std::string save_dir_;
  CocoReadOptions options_;
  int num_outputs_ = 3;
  CocoDataset dataset_;
  std::vector<int64_t> order_;  // random_shuffle: the fixed permutation of the samples
  // Loader-thread scratch.
  std::vector<std::string> paths_;
  std::vector<TensorShape> shapes_[7];
};

}  // namespace sluice
