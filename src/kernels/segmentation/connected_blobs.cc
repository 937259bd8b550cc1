#include "kernels/segmentation/connected_blobs.h"

#include <stdexcept>
#include <unordered_map>

namespace sluice::kernels {
namespace {

int32_t Find(std::vector<int32_t>& parent, int32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

std::vector<Blob> FindBlobs(const int64_t* labels, const std::vector<int64_t>& shape,
                            const std::function<bool(int64_t)>& keep, std::vector<int32_t>& parent) {
  const int nd = static_cast<int>(shape.size());
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  if (total > INT32_MAX) throw std::length_error("a mask of more than 2^31 - 1 elements");
  std::vector<int64_t> stride(static_cast<size_t>(nd), 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  parent.resize(static_cast<size_t>(total));
  std::vector<int64_t> coord(static_cast<size_t>(nd), 0);
  for (int64_t e = 0; e < total; ++e) {
    parent[e] = static_cast<int32_t>(e);
    if (keep(labels[e])) {
      for (int d = 0; d < nd; ++d) {
        if (coord[d] == 0) continue;
        const int64_t n = e - stride[d];
        if (labels[n] != labels[e]) continue;
        const int32_t a = Find(parent, static_cast<int32_t>(e)), b = Find(parent, static_cast<int32_t>(n));
        if (a != b) parent[a > b ? a : b] = a < b ? a : b;  // the earlier element stays the root
      }
    }
    for (int d = nd - 1; d >= 0; --d) {  // next coordinate
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  std::vector<Blob> blobs;
  std::unordered_map<int32_t, size_t> index;
  std::fill(coord.begin(), coord.end(), 0);
  for (int64_t e = 0; e < total; ++e) {
    if (keep(labels[e])) {
      const int32_t root = Find(parent, static_cast<int32_t>(e));
      auto [it, fresh] = index.emplace(root, blobs.size());
      if (fresh) {
        Blob b;
        b.label = labels[e];
        b.lo = coord;
        b.hi = coord;
        for (int64_t& h : b.hi) ++h;
        blobs.push_back(std::move(b));
      }
      Blob& b = blobs[it->second];
      ++b.volume;
      for (int d = 0; d < nd; ++d) {
        if (coord[d] < b.lo[d]) b.lo[d] = coord[d];
        if (coord[d] + 1 > b.hi[d]) b.hi[d] = coord[d] + 1;
      }
    }
    for (int d = nd - 1; d >= 0; --d) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  return blobs;
}

}  // namespace sluice::kernels
