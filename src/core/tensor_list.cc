#include "core/tensor_list.h"

#include <algorithm>
#include <string>
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

void TensorList::ResizeViews(const std::vector<TensorShape>& shapes, DType dtype) {
  shapes_ = shapes;
  dtype_ = dtype;
  sources_.resize(shapes.size());
  contiguous_ = false;
  contiguous_buf_.Free();
  offsets_.clear();
  while (sample_bufs_.size() < shapes.size()) sample_bufs_.emplace_back(kind_);
  sample_bufs_.resize(shapes.size());
  for (auto& b : sample_bufs_) b.Free();
}

void TensorList::ResizeMixed(const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg,
                             const std::vector<uint8_t>& views) {
  if (views.size() != shapes.size())
    throw Error("ResizeMixed: " + std::to_string(views.size()) + " view flags for " + std::to_string(shapes.size()) +
                " samples");
  shapes_ = shapes;
  dtype_ = dtype;
  sources_.resize(shapes.size());
  if (contiguous_) {
    contiguous_buf_.Free();
    offsets_.clear();
    contiguous_ = false;
  }
  // Every block of the list's own, whichever sample held it; views are let go.
  std::vector<Buffer> own;
  for (auto& b : sample_bufs_) {
    if (!b.is_view() && b.capacity() > 0) own.push_back(std::move(b));
    else b.Free();
  }
  const size_t n = shapes.size();
  while (sample_bufs_.size() < n) sample_bufs_.emplace_back(kind_);
  sample_bufs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (views[i]) continue;
    if (!own.empty()) {
      sample_bufs_[i] = std::move(own.back());
      own.pop_back();
    }
    sample_bufs_[i].Resize(sample_bytes(static_cast<int>(i)), cfg);
  }
  // Blocks no sample needs this batch stay after the samples (reserved, for the next batch).
  for (auto& b : own) sample_bufs_.push_back(std::move(b));
}

void TensorList::ShareSample(int i, const TensorList& src, int j, size_t offset) {
  if (contiguous_) throw Error("cannot make one sample of a contiguous batch a view");
  if (src.kind_ != kind_)
    throw Error("sample " + std::to_string(i) + ": cannot view " + std::string(ToString(src.kind_)) + " memory from a " +
                std::string(ToString(kind_)) + " batch");
  if (j < 0 || j >= src.num_samples())
    throw Error("sample " + std::to_string(i) + ": no sample " + std::to_string(j) + " in a batch of " +
                std::to_string(src.num_samples()) + " to view");
  const size_t bytes = sample_bytes(i);
  const size_t have = src.sample_bytes(j);
  if (offset > have || bytes > have - offset)
    throw Error("sample " + std::to_string(i) + " (" + std::to_string(bytes) + " bytes) cannot view bytes from " +
                std::to_string(offset) + " of sample " + std::to_string(j) + " (" + std::to_string(have) + " bytes)");
  Buffer& dst = sample_bufs_[static_cast<size_t>(i)];
  if (src.contiguous_) dst.ShareFrom(src.contiguous_buf_, src.offsets_[static_cast<size_t>(j)] + offset, bytes);
  else dst.ShareFrom(src.sample_bufs_[static_cast<size_t>(j)], offset, bytes);
}

void TensorList::ShareBatch(const TensorList& src, const std::vector<TensorShape>& shapes, DType dtype) {
  if (&src == this) throw Error("a batch cannot become a view of itself");
  if (shapes.size() != src.shapes_.size())
    throw Error("a view of a batch of " + std::to_string(src.num_samples()) + " samples was given " +
                std::to_string(shapes.size()) + " shapes");
  for (size_t i = 0; i < shapes.size(); ++i) {
    const size_t bytes = static_cast<size_t>(shapes[i].num_elements()) * SizeOf(dtype);
    if (bytes != src.sample_bytes(static_cast<int>(i)))
      throw Error("sample " + std::to_string(i) + ": a view of " + std::to_string(bytes) + " bytes of a sample of " +
                  std::to_string(src.sample_bytes(static_cast<int>(i))) + " bytes");
  }
  if (!src.contiguous_) {
    ResizeViews(shapes, dtype);
    for (int i = 0; i < num_samples(); ++i) ShareSample(i, src, i);
  } else {
    if (src.kind_ != kind_)
      throw Error("cannot view " + std::string(ToString(src.kind_)) + " memory from a " + std::string(ToString(kind_)) +
                  " batch");
    sample_bufs_.clear();
    contiguous_ = true;
    shapes_ = shapes;
    dtype_ = dtype;
    offsets_ = src.offsets_;
    contiguous_buf_.ShareFrom(src.contiguous_buf_, 0, src.contiguous_buf_.size());
  }
  sources_ = src.sources_;
}

bool TensorList::is_view(int i) const {
  return contiguous_ ? contiguous_buf_.is_view() : sample_bufs_[static_cast<size_t>(i)].is_view();
}

bool TensorList::has_views() const {
  if (contiguous_) return contiguous_buf_.is_view();
  return std::any_of(sample_bufs_.begin(), sample_bufs_.end(), [](const Buffer& b) { return b.is_view(); });
}

void TensorList::DropViews() {
  if (!has_views()) return;
  if (contiguous_buf_.is_view()) contiguous_buf_.Free();
  for (auto& b : sample_bufs_)
    if (b.is_view()) b.Free();
  shapes_.clear();
  sources_.clear();
  offsets_.clear();
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
