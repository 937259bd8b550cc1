#include "readers/common/sharding.h"

#include <sluice/error.h>

namespace sluice {

namespace {
// floor(a*b/c) without overflowing for the sizes readers see (a*b < 2^126).
int64_t MulDiv(int64_t a, int64_t b, int64_t c) {
  return static_cast<int64_t>(static_cast<__int128>(a) * b / c);
}
}  // namespace

ShardRange ShardBounds(int64_t num_samples, int64_t shard_id, int64_t num_shards) {
  return {MulDiv(shard_id, num_samples, num_shards), MulDiv(shard_id + 1, num_samples, num_shards)};
}

int64_t ShardForEpoch(int64_t shard_id, int64_t num_shards, int64_t epoch, bool stick_to_shard) {
  if (stick_to_shard) return shard_id;
  return (shard_id + epoch % num_shards) % num_shards;
}

int64_t MaxShardSize(int64_t num_samples, int64_t num_shards) {
  return (num_samples + num_shards - 1) / num_shards;
}

void ValidateSharding(int64_t num_samples, int64_t shard_id, int64_t num_shards, const std::string& what) {
  if (num_shards < 1) throw Error("num_shards must be at least 1, got " + std::to_string(num_shards));
  if (shard_id < 0 || shard_id >= num_shards)
    throw Error("shard_id must be in [0, num_shards) = [0, " + std::to_string(num_shards) + "), got " +
                std::to_string(shard_id));
  if (num_samples <= 0) throw Error("no samples found in " + what);
  if (num_shards > num_samples)
    throw Error("more shards (" + std::to_string(num_shards) + ") than samples (" +
                std::to_string(num_samples) + ") in " + what);
}

ReaderMeta MakeReaderMeta(int64_t num_samples, int shard_id, int num_shards, bool pad_last_batch,
                          bool stick_to_shard) {
  ReaderMeta m;
  m.epoch_size = num_samples;
  m.epoch_size_padded = pad_last_batch ? MaxShardSize(num_samples, num_shards) * num_shards : num_samples;
  m.number_of_shards = num_shards;
  m.shard_id = shard_id;
  m.pad_last_batch = pad_last_batch;
  m.stick_to_shard = stick_to_shard;
  return m;
}

}  // namespace sluice
