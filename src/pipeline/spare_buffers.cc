#include "pipeline/spare_buffers.h"

namespace sluice {

std::shared_ptr<TensorList> SpareBuffers::Take() {
  std::unique_ptr<TensorList> tl;
  {
    std::lock_guard lk(mu_);
    if (!spares_.empty()) {
      tl = std::move(spares_.back());
      spares_.pop_back();
    }
  }
  if (!tl) tl = std::make_unique<TensorList>(kind_);
  std::weak_ptr<SpareBuffers> home = weak_from_this();
  return std::shared_ptr<TensorList>(tl.release(), [home](TensorList* p) {
    if (auto pool = home.lock()) pool->Return(p);
    else delete p;
  });
}

void SpareBuffers::Return(TensorList* tl) {
  std::unique_ptr<TensorList> owned(tl);
  // A spare keeps memory of its own, never views: those would keep other batches' blocks from
  // being reused (their owners would allocate afresh every batch).
  owned->DropViews();
  std::lock_guard lk(mu_);
  if (spares_.size() < kMaxSpares) spares_.push_back(std::move(owned));
}

}  // namespace sluice
