// libFuzzer target: the LMDB walker of readers.caffe and readers.caffe2 (readers/caffe/lmdb_dataset.h)
// over arbitrary bytes taken as an LMDB data file (data.mdb). Must never crash, hang or read outside
// the input (ASan); a corrupt file may only throw sluice::Error. When the file opens, every value is
// read: each read either throws sluice::Error or returns a value no longer than the input, and every
// key is no longer than a page.
// Seed corpus: tests/data/readers/fuzz_lmdb/ (data files written by PyPI's lmdb, i.e. liblmdb: one
// leaf page, a two-level tree, values on overflow pages, named databases; made by
// tests/data/readers/fuzz_lmdb/make_seeds.py).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <sluice/error.h>

#include "readers/caffe/lmdb_dataset.h"
#include "readers/storage/file_source.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sluice::LmdbDataset db;
  try {
    db.Open(std::make_unique<sluice::MemorySource>(data, size, "fuzz.mdb"), "fuzz.mdb");
  } catch (const sluice::Error&) {
    return 0;
  }
  std::vector<uint8_t> value;
  for (int64_t i = 0; i < db.size(); ++i) {
    if (db.key_of(i).size() > 65536 || db.path_of(i) != "fuzz.mdb") __builtin_trap();
    try {
      db.Read(i, value);
      if (value.size() > size) __builtin_trap();
    } catch (const sluice::Error&) {
    }
  }
  return 0;
}
