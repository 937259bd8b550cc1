// The operator half of a two-part reader (readers.numpy, readers.video, readers.nemo_asr,
// readers.sequence): a ReaderOperator, the loader, reads the samples' bytes ahead on its own thread
// (sharding, shuffling, padding, prefetching, checkpoint state), and the subclass, the operator the
// pipeline runs, decodes them on the executor's threads. Everything a reader reports (its meta, its
// checkpoint state, Reset) is the loader's.
//
// Contract: the subclass's constructor creates loader_; its destructor resets loader_ first, so the
// loader thread stops before the subclass's members go.
#pragma once
#include <memory>
#include <optional>

#include <sluice/reader_meta.h>

#include "operators/operator.h"

namespace sluice {

template <typename Loader>
class LoaderBackedReader : public Operator {
 public:
  using Operator::Operator;

  std::optional<ReaderMeta> reader_meta() const final { return loader_->reader_meta(); }
  bool has_state() const final { return true; }
  StateMap SaveState() const final { return loader_->SaveState(); }
  void RestoreState(const StateMap& state) final { loader_->RestoreState(state); }
  void Reset() final { loader_->Reset(); }
  Loader& loader() { return *loader_; }

 protected:
  std::unique_ptr<Loader> loader_;
};

}  // namespace sluice
