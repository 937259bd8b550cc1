#include <sluice/error.h>
#include <sluice/tensor_shape.h>

namespace sluice {

void TensorShape::Assign(const int64_t* d, size_t n) {
  if (n > static_cast<size_t>(kMaxDims))
    throw Error("a tensor may have at most " + std::to_string(kMaxDims) + " dimensions, got " + std::to_string(n));
  std::copy(d, d + n, dims_);
  ndim_ = static_cast<int>(n);
}

std::string TensorShape::ToString() const {
  std::string s = "(";
  for (int i = 0; i < ndim_; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);
  }
  if (ndim_ == 1) s += ",";
  return s + ")";
}

}  // namespace sluice
