// Shard arithmetic shared by every reader (DALI's formulas).
//
// Shard i of N samples over S shards is [floor(i*N/S), floor((i+1)*N/S)). With pad_last_batch every
// shard is padded to ceil(N/S) samples, so the padded epoch is ceil(N/S)*S. Pure functions; no state.
#pragma once
#include <cstdint>
#include <string>

#include <sluice/reader_meta.h>

namespace sluice {

struct ShardRange {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
};

// The samples of shard `shard_id` (0 <= shard_id < num_shards). No validation.
ShardRange ShardBounds(int64_t num_samples, int64_t shard_id, int64_t num_shards);

// The shard read in `epoch`: (shard_id + epoch) % num_shards, or shard_id with stick_to_shard.
int64_t ShardForEpoch(int64_t shard_id, int64_t num_shards, int64_t epoch, bool stick_to_shard);

// ceil(N/S): the largest shard's size (what pad_last_batch pads every shard to).
int64_t MaxShardSize(int64_t num_samples, int64_t num_shards);

// Throws sluice::Error (naming `what`, e.g. the reader's paths) when the configuration cannot be
// sharded: no samples, num_shards < 1, shard_id outside [0, num_shards), more shards than samples.
void ValidateSharding(int64_t num_samples, int64_t shard_id, int64_t num_shards, const std::string& what);

// reader_meta() as DALI reports it.
ReaderMeta MakeReaderMeta(int64_t num_samples, int shard_id, int num_shards, bool pad_last_batch,
                          bool stick_to_shard);

}  // namespace sluice
