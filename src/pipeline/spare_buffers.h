// The recycling pool behind the executor's output buffers.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "core/buffer.h"
#include "core/tensor_list.h"

namespace sluice {

// Spare buffers for one operator output. Every buffer returns here when its last owner drops it,
// and a slot takes a buffer from here for each batch it writes: its own (just returned) when
// nobody else holds it, a spare when a batch handed to the caller outlives its slot's release (a
// PyTorch loop variable holds the previous batch while the next is taken). The return happens
// through the shared_ptr's deleter, on the last owner's thread, under this pool's mutex, so the
// last reader's accesses are ordered before the next writer's. Steady state allocates nothing: no
// page faults for fresh memory and no heap fragmentation from large blocks coming and going.
//
// Views (tensor_list.h): a returning buffer drops its views of other batches, so a batch nobody
// holds pins no memory. A buffer whose own blocks a held view still reads (the caller keeps a
// batch that views this node's output) writes its next batch into fresh blocks (buffer.h).
class SpareBuffers : public std::enable_shared_from_this<SpareBuffers> {
 public:
  explicit SpareBuffers(StorageKind kind) : kind_(kind) {}
  // A buffer whose last owner returns it here (or frees it, if the executor is gone).
  std::shared_ptr<TensorList> Take();

 private:
  static constexpr size_t kMaxSpares = 4;
  void Return(TensorList* tl);
  StorageKind kind_;
  std::mutex mu_;
  std::vector<std::unique_ptr<TensorList>> spares_;
};

}  // namespace sluice
