// The order in which a reader returns samples: sharding, shard rotation, padding, shuffling.
//
// Pure logic over sample indices [0, N): the readers map indices to data. The state is (epoch,
// position in the epoch); each epoch's order is a function of the options and the epoch number
// only, so the state (SaveState()/RestoreState()) is tiny and a restored sequencer returns exactly the samples the
// original would have. Not thread-safe: one owner (the reader's loader thread).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <sluice/reader_meta.h>

namespace sluice {

struct SequencerOptions {
  int64_t num_samples = 0;
  int shard_id = 0;
  int num_shards = 1;
  bool stick_to_shard = false;
  bool pad_last_batch = false;
  bool random_shuffle = false;       // DALI's shuffle buffer of `initial_fill` samples
  int64_t initial_fill = 1024;
  bool shuffle_after_epoch = false;  // readers.file: permute the whole list every epoch (same on all shards)
  uint64_t seed = 0;                 // seeds the shuffle buffer (per epoch: DeriveSeed(seed, epoch))
  int batch_size = 1;
};

class SampleSequencer {
 public:
  // Throws sluice::Error for an invalid configuration (see ValidateSharding; initial_fill < 1 with
  // random_shuffle; batch_size < 1, a precondition here: the pipeline's batch_size option is
  // validated by PipelineOptions::Validate). `what` names the dataset in messages.
  explicit SampleSequencer(const SequencerOptions& options, const std::string& what = "the dataset");

  // Appends the next batch_size sample indices to `out`.
  //  - without pad_last_batch the samples form one endless stream: epoch 0's shard, then epoch 1's
  //    shard (rotated unless stick_to_shard), ...; a batch may span two epochs.
  //  - with pad_last_batch each epoch ends on a batch boundary: after the shard's samples the last
  //    returned sample repeats until ceil(N/S) samples were returned and the batch is full.
  void NextBatch(std::vector<int64_t>* out);
  int64_t NextSample();

  // The epoch the next sample belongs to... or the epoch just finished, until the next draw.
  int64_t epoch() const { return epoch_; }
  int64_t position() const { return pos_; }
  // Samples returned per epoch (the shard's size, or the padded length with pad_last_batch).
  int64_t EpochLength() const { return epoch_length_; }
  // The shard's samples in this epoch's order (without padding).
  const std::vector<int64_t>& epoch_order() const { return order_; }
  ReaderMeta meta() const;
  const SequencerOptions& options() const { return opt_; }

  // The state as named values (an Operator's StateMap): the options that determine the order
  // (n, shards, shard_id, stick, pad, shuffle, fill, sae, seed) and the place (epoch, pos). Values
  // are decimal integers; booleans 0/1; seed "*" when not known yet (valid only at the start).
  using State = std::map<std::string, std::string>;
  State SaveState() const { return StateAt(epoch_, pos_); }
  // The state this sequencer would have at (epoch, position): lets a consumer record a position
  // as two integers and build the state only when asked.
  State StateAt(int64_t epoch, int64_t position) const;
  // Checks `state` against this sequencer's options without changing anything and returns its
  // (epoch, position). Every key must appear, and no other; the dataset size, sharding, shuffling
  // and seed must be this sequencer's (batch_size may differ). Throws sluice::Error naming the key
  // ("state key 'pos': ..."). A reader before its first batch may not know its seed yet (the
  // pipeline's) nor its batch size (pad_last_batch's epoch length depends on it): without
  // `seed_known` the seed is not compared, without `batch_size_known` a padded position's upper
  // bound is not checked (both are, when the reader restores at its first batch).
  struct Place {
    int64_t epoch = 0;
    int64_t position = 0;
  };
  Place CheckState(const State& state, bool seed_known = true, bool batch_size_known = true) const;
  // CheckState, then moves there.
  void RestoreState(const State& state);

  // One-line text form for messages and tests: "sluice-reader-state-v1 epoch=0 fill=16 ...".
  std::string Serialize() const { return StateText(SaveState()); }
  void Restore(const std::string& text) { RestoreState(ParseStateText(text)); }
  static std::string StateText(const State& state);
  // Throws sluice::Error for anything StateText cannot have written.
  static State ParseStateText(const std::string& text);

 private:
  void StartEpoch(int64_t epoch);
  int64_t LengthOfEpoch(int64_t epoch) const;  // samples returned in `epoch` (padding included)

  SequencerOptions opt_;
  int64_t epoch_ = 0;
  int64_t pos_ = 0;             // samples returned in this epoch
  int64_t epoch_length_ = 0;
  std::vector<int64_t> order_;  // this epoch's shard order
  std::vector<int64_t> scratch_;
};

}  // namespace sluice
