// Shapes of tensors. Part of the stable public API.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace sluice {

// A tensor's extents, outermost first. A 0-d shape has one element.
class TensorShape {
 public:
  TensorShape() = default;
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int ndim() const { return static_cast<int>(dims_.size()); }
  int64_t operator[](int i) const { return dims_[static_cast<size_t>(i)]; }
  int64_t& operator[](int i) { return dims_[static_cast<size_t>(i)]; }
  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    return n;
  }
  const std::vector<int64_t>& dims() const { return dims_; }
  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }
  // "(224, 224, 3)"
  std::string ToString() const;

 private:
  std::vector<int64_t> dims_;
};

}  // namespace sluice
