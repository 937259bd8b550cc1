// Connected blobs of a label map (segmentation.random_object_bbox): the maximal sets of elements
// with the same label linked by face neighbours (4-connectivity in 2-D, 6 in 3-D; every axis of the
// array is spatial), with their label, element count and bounding box [lo, hi) per axis.
//
// Union-find over the elements (int32 parents, path halving): memory 4 bytes per element, time
// linear in the elements. Blobs come in the order of their first element (row-major).
// Thread-safety: pure. Allocation: the scratch and the result.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

namespace sluice::kernels {

struct Blob {
  int64_t label = 0;
  int64_t volume = 0;
  std::vector<int64_t> lo, hi;  // per axis, hi exclusive
};

// labels[e] for e in [0, prod(shape)); `keep(label)` says which labels form blobs (others, e.g. the
// background, are skipped). Throws std::length_error above 2^31 - 1 elements.
std::vector<Blob> FindBlobs(const int64_t* labels, const std::vector<int64_t>& shape,
                            const std::function<bool(int64_t)>& keep, std::vector<int32_t>& scratch);

}  // namespace sluice::kernels
