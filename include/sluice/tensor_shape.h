// Shapes of tensors. Part of the stable public API.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace sluice {

// A tensor's extents, outermost first. A 0-d shape has one element. Stored inline (no heap
// allocation): batches carry one shape per sample, copied by every operator's Setup.
class TensorShape {
 public:
  static constexpr int kMaxDims = 16;

  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) { Assign(dims.begin(), dims.size()); }
  explicit TensorShape(const std::vector<int64_t>& dims) { Assign(dims.data(), dims.size()); }
  explicit TensorShape(std::span<const int64_t> dims) { Assign(dims.data(), dims.size()); }

  int ndim() const { return ndim_; }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  int64_t num_elements() const {
    int64_t n = 1;
    for (int i = 0; i < ndim_; ++i) n *= dims_[i];
    return n;
  }
  std::span<const int64_t> dims() const { return {dims_, static_cast<size_t>(ndim_)}; }
  std::vector<int64_t> to_vector() const { return {dims_, dims_ + ndim_}; }
  bool operator==(const TensorShape& o) const { return ndim_ == o.ndim_ && std::equal(dims_, dims_ + ndim_, o.dims_); }
  bool operator!=(const TensorShape& o) const { return !(*this == o); }
  // "(224, 224, 3)"
  std::string ToString() const;

 private:
  // Throws sluice::Error for more than kMaxDims dimensions.
  void Assign(const int64_t* d, size_t n);
  int64_t dims_[kMaxDims] = {};
  int ndim_ = 0;
};

}  // namespace sluice
