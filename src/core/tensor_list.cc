#include "core/tensor_list.h"

#include <algorithm>
#include <utility>

#include <sluice/error.h>

namespace sluice {
namespace {
constexpr size_t kSampleAlign = 64;
size_t AlignUp(size_t n) { return (n + kSampleAlign - 1) / kSampleAlign * kSampleAlign; }
}  // namespace

void TensorList::Resize(const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg,
                        bool contiguous) {
  shapes_ = shapes;
  dtype_ = dtype;
  sources_.resize(shapes.size());
  const size_t n = shapes.size();
  if (contiguous != contiguous_) {
    // Switching storage kind: drop the other representation.
    if (contiguous) sample_bufs_.clear(); else contiguous_buf_.Free();
    contiguous_ = contiguous;
  }
  if (contiguous_) {
    offsets_.resize(n);
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      offsets_[i] = total;
      total += AlignUp(sample_bytes(static_cast<int>(i)));
    }
    contiguous_buf_.Resize(total, cfg);
  } else {
    while (sample_bufs_.size() < n) sample_bufs_.emplace_back(kind_);
    sample_bufs_.resize(n);
    for (size_t i = 0; i < n; ++i) sample_bufs_[i].Resize(sample_bytes(static_cast<int>(i)), cfg);
  }
}

void TensorList::ResizeSample(int i, const TensorShape& shape, const MemoryConfig& cfg) {
  if (contiguous_) throw Error("cannot resize one sample of a contiguous batch");
  shapes_[static_cast<size_t>(i)] = shape;
  sample_bufs_[static_cast<size_t>(i)].Resize(sample_bytes(i), cfg);
}

void TensorList::Reserve(int num_samples, size_t bytes_per_sample, const MemoryConfig& cfg, bool contiguous) {
  if (num_samples <= 0 || bytes_per_sample == 0) return;
  if (contiguous) {
    contiguous_ = true;
    contiguous_buf_.Reserve(AlignUp(bytes_per_sample) * static_cast<size_t>(num_samples), cfg);
  } else {
    contiguous_ = false;
    while (sample_bufs_.size() < static_cast<size_t>(num_samples)) sample_bufs_.emplace_back(kind_);
    for (auto& b : sample_bufs_) b.Reserve(bytes_per_sample, cfg);
  }
}

bool TensorList::is_dense() const {
  if (shapes_.empty()) return false;
  return std::all_of(shapes_.begin(), shapes_.end(), [&](const TensorShape& s) { return s == shapes_[0]; });
}

void* TensorList::raw_mutable_sample(int i) {
  if (contiguous_) return static_cast<char*>(contiguous_buf_.data()) + offsets_[static_cast<size_t>(i)];
  return sample_bufs_[static_cast<size_t>(i)].data();
}

const void* TensorList::raw_sample(int i) const {
  return const_cast<TensorList*>(this)->raw_mutable_sample(i);
}

size_t TensorList::used_bytes() const {
  size_t total = 0;
  for (int i = 0; i < num_samples(); ++i) total += sample_bytes(i);
  return total;
}

size_t TensorList::reserved_bytes() const {
  if (contiguous_) return contiguous_buf_.capacity();
  size_t total = 0;
  for (const auto& b : sample_bufs_) total += b.capacity();
  return total;
}

size_t TensorList::max_sample_used_bytes() const {
  if (shapes_.empty()) return 0;
  if (contiguous_) return used_bytes() / shapes_.size();
  size_t m = 0;
  for (int i = 0; i < num_samples(); ++i) m = std::max(m, sample_bytes(i));
  return m;
}

size_t TensorList::max_sample_reserved_bytes() const {
  if (contiguous_) return shapes_.empty() ? contiguous_buf_.capacity() : contiguous_buf_.capacity() / shapes_.size();
  size_t m = 0;
  for (const auto& b : sample_bufs_) m = std::max(m, b.capacity());
  return m;
}

bool TensorList::uses_fallback_memory() const {
  return kind_ != StorageKind::kHost && GetAllocator(kind_).is_fallback();
}

void TensorList::AddReadFence(std::shared_ptr<void> event) const {
  std::lock_guard lk(read_fences_->mu);
  read_fences_->events.push_back(std::move(event));
}

std::vector<std::shared_ptr<void>> TensorList::TakeReadFences() {
  std::lock_guard lk(read_fences_->mu);
  return std::exchange(read_fences_->events, {});
}

}  // namespace sluice
