// A batch of tensors, stored contiguously or as separately allocated samples.
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <sluice/dtype.h>
#include <sluice/memory_config.h>
#include <sluice/source_info.h>
#include <sluice/tensor_shape.h>

#include "core/buffer.h"

namespace sluice {

// Samples share one dtype and layout but may differ in shape. Each sample carries the SourceInfo
// of the data it was made from. Not thread-safe for Resize; distinct samples may be written (or
// shared, ShareSample) from distinct threads after Resize.
//
// Shared memory: a sample may be a view of another list's sample (ShareSample, ShareBatch) instead
// of memory of its own. The view holds a reference to the other list's block (buffer.h), so it
// stays valid after that list is resized, reused for a later batch or destroyed; the other list
// writes its next batch into fresh memory while a view still reads its block. Views are read-only:
// an operator that makes one never writes through it.
class TensorList {
 public:
  explicit TensorList(StorageKind kind = StorageKind::kHost) : kind_(kind), contiguous_buf_(kind) {}
  TensorList(TensorList&&) = default;
  TensorList& operator=(TensorList&&) = default;

  // Sizes the batch for `shapes` of `dtype`. Contiguous: one buffer, samples back to back (each
  // sample's offset is aligned to 64 bytes); otherwise one buffer per sample. Sources are kept
  // for samples that remain and cleared for new ones.
  void Resize(const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg,
              bool contiguous = false);
  // Changes one sample's shape after Resize (per-sample storage only), e.g. to replace a sample
  // that failed to decode with another one. Throws for contiguous storage.
  void ResizeSample(int i, const TensorShape& shape, const MemoryConfig& cfg);
  // Sizes the batch for `shapes` of `dtype` without memory: every sample is to become a view
  // (ShareSample) before anything reads it. Per-sample storage; drops what the list held.
  void ResizeViews(const std::vector<TensorShape>& shapes, DType dtype);
  // Sizes the batch for `shapes` of `dtype` with per-sample storage where the samples with a
  // nonzero `views[i]` are to become views (ShareSample) before anything reads them and the others
  // get memory of their own. The list's own blocks go to the samples that need memory (those
  // that were views last batch included) and those left over are kept for the next batch, so a
  // batch whose pass-through samples move around reuses its memory instead of freeing and
  // allocating it. Throws unless views has one entry per shape.
  void ResizeMixed(const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg,
                   const std::vector<uint8_t>& views);
  // Sample i (its shape as set by Resize/ResizeViews/ResizeMixed) becomes a view of sample j of `src` from
  // byte `offset` on, sample_bytes(i) bytes long: no copy. Per-sample storage only; throws for
  // another storage kind or a range past src's sample. `src` may be this list (j != i).
  void ShareSample(int i, const TensorList& src, int j, size_t offset = 0);
  // The whole list becomes a view of `src`'s memory with new `shapes` and `dtype` (each sample the
  // same number of bytes as src's: reshape, reinterpret). Contiguous when src is. Sources are
  // src's; the layout is left as it was.
  void ShareBatch(const TensorList& src, const std::vector<TensorShape>& shapes, DType dtype);
  bool is_view(int i) const;
  bool has_views() const;
  // Releases every view (the list then has no samples; memory of its own is kept for reuse).
  // The executor calls it when a list goes back to its spares, so that the views of a batch
  // nobody holds do not keep their parents' blocks from being reused.
  void DropViews();

  // Preallocates `bytes_per_sample` for each of `num_samples` samples (presizing hint).
  void Reserve(int num_samples, size_t bytes_per_sample, const MemoryConfig& cfg, bool contiguous);

  int num_samples() const { return static_cast<int>(shapes_.size()); }
  DType dtype() const { return dtype_; }
  StorageKind kind() const { return kind_; }
  bool is_contiguous() const { return contiguous_; }
  // True if every sample has the same shape (and there is at least one sample).
  bool is_dense() const;
  const std::vector<TensorShape>& shapes() const { return shapes_; }
  const TensorShape& shape(int i) const { return shapes_[static_cast<size_t>(i)]; }
  size_t sample_bytes(int i) const { return static_cast<size_t>(shape(i).num_elements()) * SizeOf(dtype_); }

  void* raw_mutable_sample(int i);
  const void* raw_sample(int i) const;
  template <typename T> T* mutable_sample(int i) { return static_cast<T*>(raw_mutable_sample(i)); }
  template <typename T> const T* sample(int i) const { return static_cast<const T*>(raw_sample(i)); }

  const std::string& layout() const { return layout_; }
  void set_layout(std::string layout) { layout_ = std::move(layout); }
  SourceInfo& source(int i) { return sources_[static_cast<size_t>(i)]; }
  const SourceInfo& source(int i) const { return sources_[static_cast<size_t>(i)]; }

  // Memory accounting for statistics. Used bytes count every sample, views included; reserved
  // bytes count only memory the list allocated (a view reserves nothing: its bytes are counted by
  // the list that allocated them).
  size_t used_bytes() const;
  size_t reserved_bytes() const;
  // Biggest sample (per-sample storage) or the average sample (contiguous storage).
  size_t max_sample_used_bytes() const;
  size_t max_sample_reserved_bytes() const;
  bool uses_fallback_memory() const;

  // Stream ordering for device storage. A consumer that read this list on its own CUDA stream
  // leaves a fence (an event recorded on that stream when it let go of the data); the producer's
  // stream waits for every fence before writing into the list again. const: a consumer holds the
  // list read-only. Thread-safe.
  void AddReadFence(std::shared_ptr<void> event) const;
  std::vector<std::shared_ptr<void>> TakeReadFences();

 private:
  StorageKind kind_;
  DType dtype_ = DType::kUInt8;
  bool contiguous_ = false;
  std::string layout_;
  std::vector<TensorShape> shapes_;
  std::vector<SourceInfo> sources_;
  Buffer contiguous_buf_;
  std::vector<size_t> offsets_;         // contiguous mode
  std::vector<Buffer> sample_bufs_;     // per-sample mode
  struct ReadFences {
    std::mutex mu;
    std::vector<std::shared_ptr<void>> events;
  };
  std::unique_ptr<ReadFences> read_fences_ = std::make_unique<ReadFences>();
};

}  // namespace sluice
