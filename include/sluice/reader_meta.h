// Reader metadata, as DALI's reader_meta() reports it. Part of the stable public API.
#pragma once
#include <cstdint>

namespace sluice {

struct ReaderMeta {
  int64_t epoch_size = 0;         // samples in the whole dataset
  int64_t epoch_size_padded = 0;  // ceil(N / num_shards) * num_shards with pad_last_batch, else N
  int number_of_shards = 1;
  int shard_id = 0;
  bool pad_last_batch = false;
  bool stick_to_shard = false;
};

}  // namespace sluice
