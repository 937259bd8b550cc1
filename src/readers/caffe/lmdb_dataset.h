// The samples of one or more LMDB databases, as readers.caffe and readers.caffe2 read them: every
// key/value pair of each database's main (unnamed) B+tree in key order (LMDB's cursor order: the
// tree's in-order walk, duplicates of a DUPSORT database in their own order), the databases one
// after the other, as DALI's LMDB loader walks them with MDB_NEXT.
//
// The data file is read by Sluice's own walker of LMDB's on-disk format (mdb.c, data version 1,
// 64-bit builds: the 16-byte MDB_page header, MDB_meta on pages 0 and 1, MDB_node), not by liblmdb.
// Why not liblmdb: it maps the file and trusts every page number, node offset and size it finds, so
// a corrupt or truncated file is a SIGSEGV/SIGBUS, not an error (DALI crashes the same way).
// Validating the file first and then handing it to liblmdb would mean walking the whole tree by the
// same rules anyway, and the file could still change between the check and liblmdb's reads (its
// mapping would fault); a walker that reads through pread (ByteSource) and checks every offset as
// it goes cannot fault, whatever the bytes. The readers need only a read-only, in-order walk and
// one value by position, which is small.
//
// What is checked (each failure a sluice::Error naming the file, and the page or key): the meta
// pages (P_META, LMDB's magic, data version 1, a power-of-two page size in [512, 65536]; the meta
// of the newer transaction is used, as liblmdb does; the last page it records inside the file, which
// liblmdb writes up to that page: a shorter file was cut); the main tree's depth (at most 32, liblmdb's
// cursor stack); every page the walk reaches (inside the file, not page 0 or 1, reached once --
// a cycle or a shared page is corruption --, its stored page number its own, branch pages above
// the leaves and leaf pages at the tree's depth, mp_lower/mp_upper and every node offset and size
// inside the page); every value (inline inside its page; on overflow pages: inside the file, the
// first page marked P_OVERFLOW with enough pages for the value, checked when the value is read);
// and the number of entries found against the one the meta records.
//
// Open() lists the keys: the path is the database folder holding data.mdb, or the data file itself;
// nothing is written (no lock file). Read() copies one value out by its recorded position. The
// file is read through FileSource (pread), which checks before every read that the file's size and
// modification time are those it had when opened and throws naming it if not: positions taken from
// the old content never read the new one.
//
// Thread-safety: Open once; Read from one thread at a time (the reader's loader thread).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sluice {

class ByteSource;

class LmdbDataset {
 public:
  LmdbDataset();
  ~LmdbDataset();
  LmdbDataset(const LmdbDataset&) = delete;
  LmdbDataset& operator=(const LmdbDataset&) = delete;

  // Opens `path` (a folder holding data.mdb, or a data file) and appends its keys. Throws
  // sluice::Error naming the data file.
  void Open(const std::string& path);
  // The same over any bytes (tests, fuzzers): `name` is what messages call it.
  void Open(std::unique_ptr<ByteSource> source, const std::string& name);
  int64_t size() const { return static_cast<int64_t>(samples_.size()); }
  // Copies sample i's value into `out`. Throws sluice::Error naming the database and the key.
  void Read(int64_t i, std::vector<uint8_t>& out) const;
  // The database (the data file's path) and the key of sample i, for messages and SourceInfo.
  const std::string& path_of(int64_t i) const;
  std::string key_of(int64_t i) const;

 private:
  struct Db;
  struct Sample {
    int32_t db;
    uint32_t key_len;
    int64_t key_offset;   // into keys_
    int64_t value_pos;    // inline: the value's offset in the file; overflow: its first page's number
    uint32_t value_size;
    bool overflow;
  };
  std::vector<std::unique_ptr<Db>> dbs_;
  std::vector<Sample> samples_;
  std::string keys_;  // every key, concatenated
};

}  // namespace sluice
