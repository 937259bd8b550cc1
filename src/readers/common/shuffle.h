// Sample-order shuffling: DALI's shuffle buffer and full permutations, over sample indices.
//
// The readers shuffle indices, not data: the order is a pure function of (indices, seed), so it is
// independent of thread counts and cheap to serialise and replay.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/random.h"

namespace sluice {

// DALI's shuffle buffer: fill a buffer with the first `initial_fill` elements of `in`; then
// repeatedly emit a uniformly chosen buffer element and refill its slot with the next input
// element; when the input is exhausted, drain the buffer the same way. initial_fill == 1 keeps the
// input order; the first output is always one of the first `initial_fill` inputs. `out` is
// overwritten (its capacity is reused).
void ShuffleBufferOrder(const std::vector<int64_t>& in, int64_t initial_fill, RandomGenerator& rng,
                        std::vector<int64_t>* out);

// Fisher-Yates with RandomGenerator::UniformInt: identical on every platform and standard library.
// Any element type: permuting a list in place equals permuting its indices with the same generator
// and gathering the list by them (readers.file shuffles its flat file list so, without an index
// vector and a second copy of the list).
template <typename T>
void PermuteElements(std::vector<T>* v, RandomGenerator& rng) {
  for (size_t i = v->size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(i) - 1));
    std::swap((*v)[i - 1], (*v)[j]);
  }
}
inline void Permute(std::vector<int64_t>* v, RandomGenerator& rng) { PermuteElements(v, rng); }

// The fixed seed of readers.file's list shuffles (random_shuffle's one-off shuffle before sharding
// and shuffle_after_epoch's per-epoch shuffles): identical on every shard. DALI's value.
inline constexpr uint64_t kListShuffleSeed = 524287;

}  // namespace sluice
