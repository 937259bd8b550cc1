#include "readers/common/sample_sequencer.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <sstream>

#include <sluice/error.h>

#include "core/random.h"
#include "readers/common/sharding.h"
#include "readers/common/shuffle.h"

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
  epoch_length_ = LengthOfEpoch(epoch);
}

int64_t SampleSequencer::LengthOfEpoch(int64_t epoch) const {
  if (opt_.pad_last_batch) {
    const int64_t b = opt_.batch_size;
    return (MaxShardSize(opt_.num_samples, opt_.num_shards) + b - 1) / b * b;
  }
  const int64_t shard = ShardForEpoch(opt_.shard_id, opt_.num_shards, epoch, opt_.stick_to_shard);
  return ShardBounds(opt_.num_samples, shard, opt_.num_shards).size();  // the shard, in any order
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

SampleSequencer::State SampleSequencer::StateAt(int64_t epoch, int64_t position) const {
  auto b = [](bool v) { return std::string(v ? "1" : "0"); };
  return State{{"n", std::to_string(opt_.num_samples)},
               {"shards", std::to_string(opt_.num_shards)},
               {"shard_id", std::to_string(opt_.shard_id)},
               {"stick", b(opt_.stick_to_shard)},
               {"pad", b(opt_.pad_last_batch)},
               {"shuffle", b(opt_.random_shuffle)},
               {"fill", std::to_string(opt_.random_shuffle ? opt_.initial_fill : 0)},
               {"sae", b(opt_.shuffle_after_epoch)},
               {"seed", std::to_string(opt_.random_shuffle ? opt_.seed : 0)},
               {"epoch", std::to_string(epoch)},
               {"pos", std::to_string(position)}};
}

namespace {

// The state's keys, in the order the text form lists them.
constexpr const char* kKeys[] = {"n", "shards", "shard_id", "stick", "pad", "shuffle", "fill", "sae", "seed", "epoch", "pos"};

template <typename T>
bool ParseNumber(const std::string& v, T* out) {
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
  return !v.empty() && ec == std::errc() && p == v.data() + v.size();
}

}  // namespace

SampleSequencer::Place SampleSequencer::CheckState(const State& state, bool seed_known, bool batch_size_known) const {
  const State own = StateAt(0, 0);
  for (const auto& entry : state)
    if (!own.count(entry.first)) throw Error("unknown state key '" + entry.first + "'");
  auto text = [&](const std::string& key) -> const std::string& {
    auto it = state.find(key);
    if (it == state.end()) throw Error("state key '" + key + "' is missing");
    return it->second;
  };
  auto number = [&](const std::string& key) {
    const std::string& v = text(key);
    int64_t x = 0;
    if (!ParseNumber(v, &x) || x < 0) throw Error("state key '" + key + "': '" + v + "' is not a non-negative integer");
    return x;
  };
  const std::string& seed = text("seed");
  uint64_t seed_value = 0;
  const bool seed_unknown = seed == "*";
  if (!seed_unknown && !ParseNumber(seed, &seed_value))
    throw Error("state key 'seed': '" + seed + "' is neither an unsigned integer nor '*'");
  // Keys that must hold this sequencer's own value.
  auto same = [&](const std::string& key, const char* what) {
    const std::string& v = text(key);
    if (key != "seed") number(key);
    if (v != own.at(key))
      throw Error("state key '" + key + "': the state was saved with " + what + " " + v + ", this reader has " +
                  own.at(key));
  };
  same("n", "a dataset size of");
  same("shards", "num_shards");
  same("shard_id", "shard_id");
  same("stick", "stick_to_shard");
  same("pad", "pad_last_batch");
  same("shuffle", "random_shuffle");
  same("sae", "shuffle_after_epoch");
  same("fill", "initial_fill");
  Place at;
  at.epoch = number("epoch");
  at.position = number("pos");
  if (seed_unknown && (at.epoch != 0 || at.position != 0))
    throw Error("state key 'seed': '*' (a seed not known yet) is only valid at the start, not at epoch " +
                std::to_string(at.epoch) + " position " + std::to_string(at.position));
  if (!seed_unknown && seed_known) same("seed", "seed");
  if ((batch_size_known || !opt_.pad_last_batch) && at.position > LengthOfEpoch(at.epoch))
    throw Error("state key 'pos': position " + std::to_string(at.position) + " is outside epoch " +
                std::to_string(at.epoch) + " of length " + std::to_string(LengthOfEpoch(at.epoch)));
  return at;
}

void SampleSequencer::RestoreState(const State& state) {
  const Place at = CheckState(state);
  StartEpoch(at.epoch);
  pos_ = at.position;
}

std::string SampleSequencer::StateText(const State& state) {
  std::string s = kStateTag;
  for (const char* key : kKeys) {
    auto it = state.find(key);
    if (it != state.end()) s += " " + it->first + "=" + it->second;
  }
  for (const auto& entry : state) {  // not a structured binding: clang 14 cannot capture one
    const std::string& key = entry.first;
    if (std::find_if(std::begin(kKeys), std::end(kKeys), [&](const char* k) { return key == k; }) == std::end(kKeys))
      s += " " + key + "=" + entry.second;
  }
  return s;
}

SampleSequencer::State SampleSequencer::ParseStateText(const std::string& text) {
  std::istringstream is(text);
  std::string tag;
  is >> tag;
  if (tag != kStateTag)
    throw Error("reader state: not a Sluice reader state (expected '" + std::string(kStateTag) + "')");
  State state;
  std::string tok;
  while (is >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("reader state: malformed field '" + tok + "'");
    if (!state.emplace(tok.substr(0, eq), tok.substr(eq + 1)).second)
      throw Error("reader state: key '" + tok.substr(0, eq) + "' appears twice");
  }
  return state;
}

}  // namespace sluice
