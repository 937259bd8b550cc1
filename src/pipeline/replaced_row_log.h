// The executor's log of replaced rows (on_error="replace"; sample_replacement.h).
//
// Records are packed into large chunks rather than kept as structs of small strings: a log of
// thousands of records whose strings sit between the short-lived blocks of the consumer's thread
// (its Python objects, its arrays) pins the heap, and resident memory grew by about 17 KB per
// record (measured: +140 MB over 8,000 replaced rows) until the log was full. Chunks hold many
// records each and are dropped whole once the log holds `capacity` records without them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <sluice/sample_error.h>

namespace sluice {

class ReplacedRowLog {
 public:
  explicit ReplacedRowLog(size_t capacity) : capacity_(capacity) {}
  void Add(const SampleErrorRecord& r);
  // The last `capacity` records, oldest first.
  std::vector<SampleErrorRecord> Records() const;
  size_t size() const;

 private:
  struct Chunk {
    std::string bytes;  // packed records
    size_t count = 0;
  };
  static constexpr size_t kChunkBytes = size_t{256} << 10;

  size_t capacity_;
  size_t total_ = 0;  // records in chunks_
  std::deque<Chunk> chunks_;
};

}  // namespace sluice
