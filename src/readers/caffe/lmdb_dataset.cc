#include "readers/caffe/lmdb_dataset.h"

#include <lmdb.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <sluice/error.h>

namespace sluice {

namespace {

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

struct LmdbDataset::Db {
  std::string path;
  MDB_env* env = nullptr;
  MDB_dbi dbi = 0;
  int fd = -1;          // LMDB's data file descriptor (mdb_env_get_fd)
  int64_t size = 0;     // the data file's size and modification time when opened
  int64_t mtime_ns = 0;

  ~Db() {
    if (env) mdb_env_close(env);
  }
  [[noreturn]] void Fail(const std::string& what, int rc) const {
    throw Error("LMDB database '" + path + "': " + what + ": " + mdb_strerror(rc));
  }
  void CheckUnchanged() const {
    struct stat st;
    if (::fstat(fd, &st) != 0) throw Error("cannot stat LMDB database '" + path + "': " + std::strerror(errno));
    if (static_cast<int64_t>(st.st_size) != size)
      throw Error("LMDB database '" + path + "' changed size since it was opened (" + std::to_string(size) + " -> " +
                  std::to_string(st.st_size) + " bytes): it was truncated or rewritten in place while being read");
    if (MtimeNs(st) != mtime_ns)
      throw Error("LMDB database '" + path + "' was modified since it was opened (same size, new modification "
                  "time): it was rewritten in place while being read");
  }
};

LmdbDataset::LmdbDataset() = default;
LmdbDataset::~LmdbDataset() = default;

void LmdbDataset::Open(const std::string& path) {
  auto db = std::make_unique<Db>();
  db->path = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot open LMDB database '" + path + "': " + std::strerror(errno));
  unsigned flags = MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS | MDB_NORDAHEAD;
  if (!S_ISDIR(st.st_mode)) flags |= MDB_NOSUBDIR;
  int rc = mdb_env_create(&db->env);
  if (rc) db->Fail("cannot create an environment", rc);
  // The map size is the data file's (mdb_env_open reads the one recorded in the file when larger).
  rc = mdb_env_open(db->env, path.c_str(), flags, 0664);
  if (rc) db->Fail("cannot open", rc);
  rc = mdb_env_get_fd(db->env, &db->fd);
  if (rc) db->Fail("cannot get the data file", rc);
  if (::fstat(db->fd, &st) != 0) throw Error("cannot stat LMDB database '" + path + "': " + std::strerror(errno));
  db->size = static_cast<int64_t>(st.st_size);
  db->mtime_ns = MtimeNs(st);
  MDB_txn* txn = nullptr;
  rc = mdb_txn_begin(db->env, nullptr, MDB_RDONLY, &txn);
  if (rc) db->Fail("cannot begin a read transaction", rc);
  rc = mdb_dbi_open(txn, nullptr, 0, &db->dbi);
  if (rc) {
    mdb_txn_abort(txn);
    db->Fail("cannot open the main database", rc);
  }
  MDB_cursor* cur = nullptr;
  rc = mdb_cursor_open(txn, db->dbi, &cur);
  if (rc) {
    mdb_txn_abort(txn);
    db->Fail("cannot open a cursor", rc);
  }
  const int32_t index = static_cast<int32_t>(dbs_.size());
  MDB_val k, v;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    samples_.push_back(Sample{index, static_cast<uint32_t>(k.mv_size), static_cast<int64_t>(keys_.size())});
    keys_.append(static_cast<const char*>(k.mv_data), k.mv_size);
  }
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  if (rc != MDB_NOTFOUND) db->Fail("cannot list the keys", rc);
  dbs_.push_back(std::move(db));
}

const std::string& LmdbDataset::path_of(int64_t i) const { return dbs_[static_cast<size_t>(samples_[static_cast<size_t>(i)].db)]->path; }

std::string LmdbDataset::key_of(int64_t i) const {
  const Sample& s = samples_[static_cast<size_t>(i)];
  return keys_.substr(static_cast<size_t>(s.key_offset), s.key_len);
}

void LmdbDataset::Read(int64_t i, std::vector<uint8_t>& out) const {
  const Sample& s = samples_[static_cast<size_t>(i)];
  const Db& db = *dbs_[static_cast<size_t>(s.db)];
  db.CheckUnchanged();
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(db.env, nullptr, MDB_RDONLY, &txn);
  if (rc) db.Fail("cannot begin a read transaction", rc);
  MDB_val k{s.key_len, const_cast<char*>(keys_.data() + s.key_offset)}, v;
  rc = mdb_get(txn, db.dbi, &k, &v);
  if (rc) {
    mdb_txn_abort(txn);
    db.Fail("cannot read key '" + key_of(i) + "'", rc);
  }
  const auto* p = static_cast<const uint8_t*>(v.mv_data);
  out.assign(p, p + v.mv_size);
  mdb_txn_abort(txn);
}

}  // namespace sluice
