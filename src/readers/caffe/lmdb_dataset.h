// The samples of one or more LMDB databases (liblmdb), as readers.caffe and readers.caffe2 read
// them: every key/value pair of each database in key order (LMDB's byte order), the databases one
// after the other, as DALI's LMDB loader walks them.
//
// Open() lists the keys (a read-only environment, MDB_NOLOCK | MDB_NOTLS, no lock file written;
// the path is the database folder holding data.mdb, or the data file itself). Read() copies one
// value out under a short read transaction. Like FileSource, each Read first checks that the data
// file's size and modification time are those it had when opened and throws naming the path if
// not: LMDB reads through a mapping, so a file truncated under it would otherwise be SIGBUS, and a
// file rewritten would hand out other samples under the listed keys.
//
// Thread-safety: Open once; Read from one thread at a time (the reader's loader thread).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice {

class LmdbDataset {
 public:
  LmdbDataset();
  ~LmdbDataset();
  LmdbDataset(const LmdbDataset&) = delete;
  LmdbDataset& operator=(const LmdbDataset&) = delete;

  // Opens `path` and appends its keys. Throws sluice::Error naming the path.
  void Open(const std::string& path);
  int64_t size() const { return static_cast<int64_t>(samples_.size()); }
  // Copies sample i's value into `out`. Throws sluice::Error naming the database and the key.
  void Read(int64_t i, std::vector<uint8_t>& out) const;
  // The database (path) and the key of sample i, for messages and SourceInfo.
  const std::string& path_of(int64_t i) const;
  std::string key_of(int64_t i) const;

 private:
  struct Db;
  struct Sample {
    int32_t db;
    uint32_t key_len;
    int64_t key_offset;  // into keys_
  };
  std::vector<std::unique_ptr<Db>> dbs_;
  std::vector<Sample> samples_;
  std::string keys_;  // every key, concatenated
};

}  // namespace sluice
