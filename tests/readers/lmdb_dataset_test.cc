// The LMDB walker of readers.caffe / readers.caffe2 (readers/caffe/lmdb_dataset.h) against liblmdb
// itself: databases written here with liblmdb (small and large values, trees of several levels,
// DUPSORT databases whose duplicates sit in sub-pages, in sub-databases and in LEAF2 pages, named
// databases) list the same keys and values, in the same order, as liblmdb's MDB_NEXT cursor; and
// corrupt files (bytes flipped in every page, truncated files, page numbers pointing outside the
// file, at a meta page or in a cycle) are a sluice::Error naming the file, never a crash.
#include <gtest/gtest.h>
#include <lmdb.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <sluice/error.h>

#include "readers/caffe/lmdb_dataset.h"
#include "readers/storage/file_source.h"

namespace sluice {
namespace {

namespace fs = std::filesystem;
using KV = std::vector<std::pair<std::string, std::string>>;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("sluice_lmdb_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

void Check(int rc, const char* what) {
  if (rc) throw std::runtime_error(std::string(what) + ": " + mdb_strerror(rc));
}

// Writes `kv` into the main database of a new environment at `dir` (flags for mdb_dbi_open).
void WriteDb(const fs::path& dir, const KV& kv, unsigned flags = 0) {
  MDB_env* env;
  Check(mdb_env_create(&env), "create");
  Check(mdb_env_set_mapsize(env, 64 << 20), "mapsize");
  Check(mdb_env_open(env, dir.c_str(), 0, 0664), "open");
  MDB_txn* txn;
  Check(mdb_txn_begin(env, nullptr, 0, &txn), "begin");
  MDB_dbi dbi;
  Check(mdb_dbi_open(txn, nullptr, flags, &dbi), "dbi");
  for (const auto& [k, v] : kv) {
    MDB_val key{k.size(), const_cast<char*>(k.data())}, val{v.size(), const_cast<char*>(v.data())};
    Check(mdb_put(txn, dbi, &key, &val, 0), "put");
  }
  Check(mdb_txn_commit(txn), "commit");
  mdb_env_close(env);
}

// What liblmdb's cursor lists.
KV ReadWithLiblmdb(const fs::path& dir) {
  MDB_env* env;
  Check(mdb_env_create(&env), "create");
  Check(mdb_env_open(env, dir.c_str(), MDB_RDONLY, 0664), "open");
  MDB_txn* txn;
  Check(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn), "begin");
  MDB_dbi dbi;
  Check(mdb_dbi_open(txn, nullptr, 0, &dbi), "dbi");
  MDB_cursor* cur;
  Check(mdb_cursor_open(txn, dbi, &cur), "cursor");
  KV out;
  MDB_val k, v;
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
    out.emplace_back(std::string(static_cast<char*>(k.mv_data), k.mv_size), std::string(static_cast<char*>(v.mv_data), v.mv_size));
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  mdb_env_close(env);
  return out;
}

KV ReadWithSluice(const std::string& path) {
  LmdbDataset db;
  db.Open(path);
  KV out;
  std::vector<uint8_t> v;
  for (int64_t i = 0; i < db.size(); ++i) {
    db.Read(i, v);
    out.emplace_back(db.key_of(i), std::string(v.begin(), v.end()));
  }
  return out;
}

std::string Bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string Key(int k) {
  char b[16];
  std::snprintf(b, sizeof b, "%08d", k);
  return b;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void WriteAll(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(s.data(), static_cast<std::streamsize>(s.size()));
}

TEST(LmdbDataset, SameEntriesAsLiblmdb) {
  struct Case {
    const char* name;
    KV kv;
    unsigned flags;
  };
  std::vector<Case> cases;
  KV small, big, tree;
  for (int k = 0; k < 5; ++k) small.emplace_back(Key(k), Bytes(1 + k * 7, k));
  for (int k = 0; k < 40; ++k) big.emplace_back(Key(k), Bytes(k % 3 ? 3000 + k * 501 : 11, k));  // overflow pages
  for (int k = 0; k < 20000; ++k) tree.emplace_back(Key(k * 7919 % 20000), Bytes(k % 40, k));   // 3 levels
  cases.push_back({"small", small, 0});
  cases.push_back({"overflow", big, 0});
  cases.push_back({"tree", tree, 0});
  KV dups;  // DUPSORT: a few duplicates (sub-pages) and many (a sub-database)
  for (int k = 0; k < 30; ++k)
    for (int d = 0; d < (k == 7 ? 3000 : k % 4); ++d) dups.emplace_back(Key(k), "dup" + Key(d * 13 % 3001));
  cases.push_back({"dupsort", dups, MDB_DUPSORT});
  KV fixed;  // DUPFIXED: LEAF2 sub-pages and pages
  for (int k = 0; k < 10; ++k)
    for (int d = 0; d < (k == 3 ? 5000 : k); ++d) fixed.emplace_back(Key(k), Key(d));
  cases.push_back({"dupfixed", fixed, MDB_DUPSORT | MDB_DUPFIXED});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    WriteDb(dir.path, c.kv, c.flags);
    const KV want = ReadWithLiblmdb(dir.path);
    ASSERT_GE(want.size(), c.kv.size() > 0 ? 1u : 0u);
    EXPECT_EQ(ReadWithSluice(dir.path.string()), want);
    EXPECT_EQ(ReadWithSluice((dir.path / "data.mdb").string()), want);  // the data file itself
  }
}

TEST(LmdbDataset, EmptyDatabaseHasNoEntries) {
  TempDir dir;
  WriteDb(dir.path, {});
  LmdbDataset db;
  db.Open(dir.path.string());
  EXPECT_EQ(db.size(), 0);
}

// Every corruption is an Error naming the file, never a crash (ASan: never a read outside). The
// bytes are read from memory under the file's name (the same walker as for the file).
void ExpectErrorOrValues(const std::string& bytes, const std::string& name, const std::string& why) {
  SCOPED_TRACE(why);
  try {
    LmdbDataset db;
    db.Open(std::make_unique<MemorySource>(bytes.data(), bytes.size(), name), name);
    std::vector<uint8_t> v;
    for (int64_t i = 0; i < db.size(); ++i) {
      try {
        db.Read(i, v);
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
    }
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(LmdbDataset, CorruptPagesAreErrorsNamingTheFile) {
  TempDir dir;
  KV kv;
  for (int k = 0; k < 400; ++k) kv.emplace_back(Key(k), Bytes(k % 5 ? 20 + k : 6000, k));
  WriteDb(dir.path, kv);
  const fs::path file = dir.path / "data.mdb";
  const std::string name = file.string();
  const std::string good = ReadAll(file);
  const size_t psize = 4096;
  ASSERT_EQ(good.size() % psize, 0u);
  std::mt19937 rng(1);
  // Bytes flipped in every page: headers, pointers, nodes, values.
  for (size_t page = 0; page < good.size() / psize; ++page) {
    for (size_t off : {size_t{0}, size_t{8}, size_t{10}, size_t{12}, size_t{14}, size_t{16}, size_t{17}, size_t{18},
                       size_t{40}, size_t{46}, size_t{128}, size_t{136}, size_t{144}, size_t{4000}, size_t{4090}}) {
      for (uint8_t x : {uint8_t{0xff}, uint8_t{0x80}, uint8_t{0x01}}) {
        std::string bad = good;
        bad[page * psize + off] = static_cast<char>(bad[page * psize + off] ^ x);
        ExpectErrorOrValues(bad, name, "page " + std::to_string(page) + " byte " + std::to_string(off));
      }
    }
  }
  for (int r = 0; r < 2000; ++r) {  // random bytes anywhere
    std::string bad = good;
    for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    ExpectErrorOrValues(bad, name, "random " + std::to_string(r));
  }
  // The file itself truncated (at page boundaries and inside pages): every read of it fails,
  // naming it, at the open or at the read of a value past the end.
  for (size_t len = 0; len < good.size(); len += len < 3 * psize ? 509 : 4 * psize + 1531) {
    WriteAll(file, good.substr(0, len));
    SCOPED_TRACE("truncated to " + std::to_string(len));
    EXPECT_THROW(
        {
          try {
            LmdbDataset db;
            db.Open(file.string());
            std::vector<uint8_t> v;
            for (int64_t i = 0; i < db.size(); ++i) db.Read(i, v);
          } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
            throw;
          }
        },
        Error);
  }
}

TEST(LmdbDataset, BadPageNumbersAreNamed) {
  TempDir dir;
  KV kv;
  for (int k = 0; k < 300; ++k) kv.emplace_back(Key(k), Bytes(30, k));
  WriteDb(dir.path, kv);
  const fs::path file = dir.path / "data.mdb";
  const std::string good = ReadAll(file);
  // The newer meta page's main-database root (MDB_meta: 16 + 24 + 48 + 40).
  uint64_t txn0, txn1;
  std::memcpy(&txn0, good.data() + 144, 8);
  std::memcpy(&txn1, good.data() + 4096 + 144, 8);
  const size_t meta = txn0 < txn1 ? 4096 : 0;
  auto with_root = [&](uint64_t root) {
    std::string bad = good;
    std::memcpy(bad.data() + meta + 128, &root, 8);
    WriteAll(file, bad);
  };
  auto message = [&] {
    try {
      LmdbDataset db;
      db.Open(file.string());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  with_root(1);
  EXPECT_NE(message().find("a meta page"), std::string::npos) << message();
  with_root(1000000);
  EXPECT_NE(message().find("past the end of the file"), std::string::npos) << message();
  EXPECT_NE(message().find(file.string()), std::string::npos);
  with_root(~uint64_t{0} - 1);
  EXPECT_NE(message().find("past the end of the file"), std::string::npos) << message();
  // A branch entry pointing back at the root: a cycle.
  uint64_t root;
  std::memcpy(&root, good.data() + meta + 128, 8);
  std::string bad = good;
  const size_t rp = root * 4096;
  uint16_t flags;
  std::memcpy(&flags, bad.data() + rp + 10, 2);
  ASSERT_TRUE(flags & 1) << "the root should be a branch page";
  uint16_t node;
  std::memcpy(&node, bad.data() + rp + 16 + 2, 2);  // the second entry
  const uint16_t lo = static_cast<uint16_t>(root), hi = static_cast<uint16_t>(root >> 16), top = 0;
  std::memcpy(bad.data() + rp + node, &lo, 2);
  std::memcpy(bad.data() + rp + node + 2, &hi, 2);
  std::memcpy(bad.data() + rp + node + 4, &top, 2);
  WriteAll(file, bad);
  EXPECT_NE(message().find("reached twice"), std::string::npos) << message();
  // Not an LMDB file at all.
  WriteAll(file, std::string(10000, 'x'));
  EXPECT_NE(message().find("not an LMDB data file"), std::string::npos) << message();
}

TEST(LmdbDataset, InMemoryEntryPoint) {
  TempDir dir;
  WriteDb(dir.path, {{"a", "1"}, {"b", "22"}});
  const std::string bytes = ReadAll(dir.path / "data.mdb");
  LmdbDataset db;
  db.Open(std::make_unique<MemorySource>(bytes.data(), bytes.size(), "mem.mdb"), "mem.mdb");
  ASSERT_EQ(db.size(), 2);
  std::vector<uint8_t> v;
  db.Read(1, v);
  EXPECT_EQ(db.key_of(1), "b");
  EXPECT_EQ(std::string(v.begin(), v.end()), "22");
  EXPECT_EQ(db.path_of(0), "mem.mdb");
}

}  // namespace
}  // namespace sluice
