#include "kernels/reduce/reduce.h"

#include <stdexcept>

namespace sluice::kernels {

std::vector<int64_t> ReducePlan::OutputDims(bool keep_dims) const {
  std::vector<int64_t> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!reduced[d]) out.push_back(dims[d]);
    else if (keep_dims) out.push_back(1);
  }
  return out;
}

int64_t ReducePlan::OutputSize() const {
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d]) n *= dims[d];
  return n;
}

int64_t ReducePlan::GroupSize() const {
  int64_t n = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (reduced[d]) n *= dims[d];
  return n;
}

ReducePlan MakeReducePlan(std::span<const int64_t> dims, std::span<const int64_t> axes, bool empty_means_all) {
  ReducePlan p;
  p.dims.assign(dims.begin(), dims.end());
  const int64_t nd = static_cast<int64_t>(dims.size());
  p.reduced.assign(dims.size(), axes.empty() && empty_means_all);
  for (int64_t a : axes) {
    if (a < -nd || a >= nd)
      throw std::invalid_argument("axis " + std::to_string(a) + " is out of range [" + std::to_string(-nd) + ", " +
                                  std::to_string(nd - 1) + "] for " + std::to_string(nd) + " dimensions");
    const size_t k = static_cast<size_t>(a < 0 ? a + nd : a);
    if (p.reduced[k]) throw std::invalid_argument("axis " + std::to_string(a) + " is given twice");
    p.reduced[k] = true;
  }
  return p;
}

}  // namespace sluice::kernels
