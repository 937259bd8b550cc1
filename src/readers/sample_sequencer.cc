#include "readers/sample_sequencer.h"

#include <charconv>
#include <sstream>

#include <sluice/error.h>

#include "core/random.h"
#include "readers/sharding.h"
#include "readers/shuffle.h"

namespace sluice {

namespace {
constexpr const char* kStateTag = "sluice-reader-state-v1";
}  // namespace

SampleSequencer::SampleSequencer(const SequencerOptions& options, const std::string& what) : opt_(options) {
  ValidateSharding(opt_.num_samples, opt_.shard_id, opt_.num_shards, what);
  if (opt_.batch_size < 1) throw Error("batch_size must be at least 1, got " + std::to_string(opt_.batch_size));
  if (opt_.random_shuffle && opt_.initial_fill < 1)
    throw Error("initial_fill must be at least 1, got " + std::to_string(opt_.initial_fill));
  StartEpoch(0);
}

void SampleSequencer::StartEpoch(int64_t epoch) {
  epoch_ = epoch;
  pos_ = 0;
  const int64_t shard = ShardForEpoch(opt_.shard_id, opt_.num_shards, epoch, opt_.stick_to_shard);
  const ShardRange r = ShardBounds(opt_.num_samples, shard, opt_.num_shards);
  scratch_.resize(static_cast<size_t>(r.size()));
  if (opt_.shuffle_after_epoch) {
    // The same permutation of the whole list on every shard, then this shard's slice of it.
    std::vector<int64_t> all(static_cast<size_t>(opt_.num_samples));
    for (int64_t i = 0; i < opt_.num_samples; ++i) all[static_cast<size_t>(i)] = i;
    RandomGenerator rng(DeriveSeed(kListShuffleSeed, static_cast<uint64_t>(epoch)));
    Permute(&all, rng);
    for (int64_t i = 0; i < r.size(); ++i) scratch_[static_cast<size_t>(i)] = all[static_cast<size_t>(r.begin + i)];
  } else {
    for (int64_t i = 0; i < r.size(); ++i) scratch_[static_cast<size_t>(i)] = r.begin + i;
  }
  if (opt_.random_shuffle) {
    RandomGenerator rng(DeriveSeed(opt_.seed, static_cast<uint64_t>(epoch), 0x5eed));
    ShuffleBufferOrder(scratch_, opt_.initial_fill, rng, &order_);
  } else {
    order_.swap(scratch_);
  }
  if (opt_.pad_last_batch) {
    const int64_t b = opt_.batch_size;
    const int64_t target = MaxShardSize(opt_.num_samples, opt_.num_shards);
    epoch_length_ = (target + b - 1) / b * b;
  } else {
    epoch_length_ = static_cast<int64_t>(order_.size());
  }
}

int64_t SampleSequencer::NextSample() {
  if (pos_ >= epoch_length_) StartEpoch(epoch_ + 1);
  const size_t n = order_.size();
  const size_t i = static_cast<size_t>(pos_) < n ? static_cast<size_t>(pos_) : n - 1;
  ++pos_;
  return order_[i];
}

void SampleSequencer::NextBatch(std::vector<int64_t>* out) {
  for (int i = 0; i < opt_.batch_size; ++i) out->push_back(NextSample());
}

ReaderMeta SampleSequencer::meta() const {
  return MakeReaderMeta(opt_.num_samples, opt_.shard_id, opt_.num_shards, opt_.pad_last_batch,
                        opt_.stick_to_shard || opt_.shuffle_after_epoch);
}

std::string SampleSequencer::SerializeAt(int64_t epoch, int64_t position) const {
  std::ostringstream os;
  os << kStateTag << " n=" << opt_.num_samples << " shards=" << opt_.num_shards << " shard_id=" << opt_.shard_id
     << " stick=" << opt_.stick_to_shard << " pad=" << opt_.pad_last_batch << " shuffle=" << opt_.random_shuffle
     << " fill=" << (opt_.random_shuffle ? opt_.initial_fill : 0) << " sae=" << opt_.shuffle_after_epoch
     << " seed=" << (opt_.random_shuffle ? opt_.seed : 0) << " epoch=" << epoch << " pos=" << position;
  return os.str();
}

void SampleSequencer::Restore(const std::string& state) {
  std::istringstream is(state);
  std::string tag;
  is >> tag;
  if (tag != kStateTag) throw Error("reader state: not a Sluice reader state (expected '" + std::string(kStateTag) + "')");
  // Parse key=value pairs; every key must appear once.
  const char* keys[] = {"n", "shards", "shard_id", "stick", "pad", "shuffle", "fill", "sae", "seed", "epoch", "pos"};
  uint64_t vals[11] = {};
  bool seen[11] = {};
  bool seed_unknown = false;
  std::string tok;
  while (is >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos) throw Error("reader state: malformed field '" + tok + "'");
    const std::string key = tok.substr(0, eq);
    int k = -1;
    for (int i = 0; i < 11; ++i) if (key == keys[i]) k = i;
    if (k < 0 || seen[k]) throw Error("reader state: unexpected field '" + tok + "'");
    const char* b = tok.data() + eq + 1;
    const char* e = tok.data() + tok.size();
    if (k == 8 && tok.substr(eq + 1) == "*") {  // seed not known when saved: only valid at the start
      seen[k] = true;
      seed_unknown = true;
      continue;
    }
    auto [p, ec] = std::from_chars(b, e, vals[k]);
    if (ec != std::errc() || p != e || b == e) throw Error("reader state: bad number in '" + tok + "'");
    seen[k] = true;
  }
  for (int i = 0; i < 11; ++i)
    if (!seen[i]) throw Error(std::string("reader state: field '") + keys[i] + "' is missing");
  auto mismatch = [&](const char* what) {
    throw Error(std::string("reader state was saved with a different ") + what + " (state: " + state +
                "; this reader: " + Serialize() + ")");
  };
  if (static_cast<int64_t>(vals[0]) != opt_.num_samples) mismatch("dataset size");
  if (static_cast<int>(vals[1]) != opt_.num_shards || static_cast<int>(vals[2]) != opt_.shard_id) mismatch("sharding");
  if ((vals[3] != 0) != opt_.stick_to_shard || (vals[4] != 0) != opt_.pad_last_batch) mismatch("stick_to_shard/pad_last_batch");
  if ((vals[5] != 0) != opt_.random_shuffle || (vals[7] != 0) != opt_.shuffle_after_epoch) mismatch("shuffling");
  const int64_t epoch = static_cast<int64_t>(vals[9]);
  const int64_t pos = static_cast<int64_t>(vals[10]);
  if (seed_unknown && (epoch != 0 || pos != 0)) throw Error("reader state: 'seed=*' is only valid at the start");
  if (opt_.random_shuffle && (static_cast<int64_t>(vals[6]) != opt_.initial_fill || (!seed_unknown && vals[8] != opt_.seed)))
    mismatch("seed or initial_fill");
  if (epoch < 0) throw Error("reader state: bad epoch");
  StartEpoch(epoch);
  if (pos < 0 || pos > epoch_length_)
    throw Error("reader state: position " + std::to_string(pos) + " is outside epoch " + std::to_string(epoch) +
                " of length " + std::to_string(epoch_length_));
  pos_ = pos;
}

}  // namespace sluice
