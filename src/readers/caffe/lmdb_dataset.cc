#include "readers/caffe/lmdb_dataset.h"

#include <sys/stat.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <functional>

#include <sluice/error.h>

#include "readers/storage/file_source.h"

namespace sluice {

namespace {

static_assert(std::endian::native == std::endian::little, "the LMDB walker reads little-endian files");

// LMDB's on-disk format (mdb.c, MDB_DATA_VERSION 1, 64-bit pgno_t and size_t).
constexpr size_t kPageHeader = 16;  // mp_pgno u64, mp_pad u16, mp_flags u16, mp_lower u16, mp_upper u16
constexpr size_t kNodeHeader = 8;   // mn_lo u16, mn_hi u16, mn_flags u16, mn_ksize u16, then key, data
constexpr size_t kDbRecord = 48;    // MDB_db
constexpr size_t kMetaDbs = kPageHeader + 24;               // MDB_meta: magic, version, address, mapsize
constexpr size_t kMetaEnd = kMetaDbs + 2 * kDbRecord + 16;  // ... mm_dbs[2], mm_last_pg, mm_txnid
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr uint16_t kPageBranch = 0x01, kPageLeaf = 0x02, kPageOverflow = 0x04, kPageMeta = 0x08,
                   kPageLeaf2 = 0x20;
constexpr uint16_t kNodeBigData = 0x01, kNodeSubData = 0x02, kNodeDupData = 0x04;
constexpr uint16_t kDbDupSort = 0x04;
constexpr uint64_t kNoPage = ~uint64_t{0};  // P_INVALID: an empty tree's root
constexpr int kMaxDepth = 32;               // liblmdb's CURSOR_STACK

template <typename T> T Get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct DbRecord {
  uint32_t pad;  // FREE_DBI's: the page size; a DUPFIXED sub-database's: the size of its values
  uint16_t flags, depth;
  uint64_t entries, root;
};

DbRecord ParseDb(const uint8_t* p) {
  return {Get<uint32_t>(p), Get<uint16_t>(p + 4), Get<uint16_t>(p + 6), Get<uint64_t>(p + 32), Get<uint64_t>(p + 40)};
}

// One value found by the walk: its key and where its bytes are.
struct Found {
  const uint8_t* key;
  size_t key_len;
  int64_t value_pos;  // file offset (inline) or first overflow page (overflow)
  uint32_t value_size;
  bool overflow;
};

// The bounds-checked walk of one data file's main tree (see lmdb_dataset.h for what it checks).
class Walker {
 public:
  Walker(const ByteSource& src, const std::string& name, int64_t psize, const std::function<void(const Found&)>& emit)
      : src_(src), name_(name), psize_(psize), pages_(static_cast<uint64_t>(src.size() / psize)),
        seen_(pages_, false), emit_(emit) {}

  // Walks the main tree; returns the entries found.
  uint64_t WalkMain(const DbRecord& db) {
    dupsort_ = db.flags & kDbDupSort;
    count_ = 0;
    if (db.root == kNoPage) {
      if (db.entries != 0)
        Fail("the main database has no root page but records " + std::to_string(db.entries) + " entries");
      return 0;
    }
    WalkTree(db, "the main database", [&](const uint8_t* page, int64_t at) { MainLeaf(page, at); });
    return count_;
  }

  [[noreturn]] void Fail(const std::string& why) const {
    throw Error("LMDB database '" + name_ + "' is corrupt: " + why);
  }

 private:
  std::string PageName(uint64_t pgno) const {
    return "page " + std::to_string(pgno) + " (offset " + std::to_string(pgno * static_cast<uint64_t>(psize_)) + ")";
  }

  // A page of the tree read into `buf` after the checks every tree page passes.
  void LoadPage(uint64_t pgno, std::vector<uint8_t>& buf, const char* what) {
    if (pgno < 2) Fail(std::string(what) + " points at " + PageName(pgno) + ", a meta page");
    if (pgno >= pages_)
      Fail(std::string(what) + " points at " + PageName(pgno) + ", past the end of the file (" +
           std::to_string(pages_) + " pages of " + std::to_string(psize_) + " bytes: truncated?)");
    if (seen_[pgno]) Fail(PageName(pgno) + " is reached twice (a cycle or a shared page in the tree)");
    seen_[pgno] = true;
    buf.resize(static_cast<size_t>(psize_));
    src_.ReadAt(static_cast<int64_t>(pgno) * psize_, buf.size(), buf.data());
    if (Get<uint64_t>(buf.data()) != pgno)
      Fail(PageName(pgno) + " records the page number " + std::to_string(Get<uint64_t>(buf.data())));
  }

  // The number of entries of a page (or sub-page) of `size` bytes, its mp_lower checked.
  size_t NumKeys(const uint8_t* p, size_t size, const std::string& where) const {
    const size_t lower = Get<uint16_t>(p + 12), upper = Get<uint16_t>(p + 14);
    if (lower < kPageHeader || lower > upper || upper > size || (lower - kPageHeader) % 2 != 0)
      Fail(where + ": its free-space bounds (" + std::to_string(lower) + ", " + std::to_string(upper) +
           ") are outside its " + std::to_string(size) + " bytes");
    const size_t n = (lower - kPageHeader) / 2;
    if (n == 0) Fail(where + " holds no entries");
    return n;
  }

  // Node i of a page (or sub-page) of `size` bytes: its offset, its header and key inside.
  size_t Node(const uint8_t* p, size_t size, size_t i, const std::string& where) const {
    const size_t off = Get<uint16_t>(p + kPageHeader + 2 * i);
    const size_t lower = Get<uint16_t>(p + 12);
    if (off < lower || off + kNodeHeader > size || off + kNodeHeader + Get<uint16_t>(p + off + 6) > size)
      Fail(where + ": entry " + std::to_string(i) + " at byte " + std::to_string(off) + " is outside the page");
    return off;
  }

  // Depth-first, in key order, over the tree `db`; `leaf` gets each leaf page and its file offset.
  void WalkTree(const DbRecord& db, const std::string& tree,
                const std::function<void(const uint8_t*, int64_t)>& leaf) {
    if (db.depth < 1 || db.depth > kMaxDepth)
      Fail(tree + " records a depth of " + std::to_string(db.depth) + " (1 to " + std::to_string(kMaxDepth) + ")");
    struct Frame {
      std::vector<uint8_t> buf;
      size_t next = 0, n = 0;
      uint64_t pgno = 0;
    };
    std::vector<Frame> stack(db.depth);
    size_t level = 0;
    auto enter = [&](uint64_t pgno, const char* what) {
      Frame& f = stack[level];
      LoadPage(pgno, f.buf, what);
      f.pgno = pgno;
      f.next = 0;
      const uint16_t flags = Get<uint16_t>(f.buf.data() + 10);
      const bool want_leaf = level + 1 == db.depth;
      const bool ok = want_leaf ? (flags & kPageLeaf) && !(flags & kPageBranch) : (flags & kPageBranch) && !(flags & (kPageLeaf | kPageLeaf2));
      if (!ok)
        Fail(PageName(pgno) + " of " + tree + " is not a " + (want_leaf ? "leaf" : "branch") + " page (flags " +
             std::to_string(flags) + ", level " + std::to_string(level + 1) + " of " + std::to_string(db.depth) + ")");
      f.n = (flags & kPageLeaf2) ? 0 : NumKeys(f.buf.data(), f.buf.size(), PageName(pgno));
      if (want_leaf) leaf(f.buf.data(), static_cast<int64_t>(pgno) * psize_);
    };
    enter(db.root, "the root");
    if (db.depth == 1) return;
    for (;;) {
      Frame& f = stack[level];
      if (f.next == f.n) {
        if (level == 0) return;
        --level;
        continue;
      }
      const uint8_t* p = f.buf.data();
      const size_t off = Node(p, f.buf.size(), f.next++, PageName(f.pgno));
      const uint64_t child = uint64_t{Get<uint16_t>(p + off)} | uint64_t{Get<uint16_t>(p + off + 2)} << 16 |
                             uint64_t{Get<uint16_t>(p + off + 4)} << 32;
      ++level;
      enter(child, "a branch entry");
      if (level + 1 == db.depth) --level;  // a leaf: done with it at once
    }
  }

  void MainLeaf(const uint8_t* p, int64_t at) {
    const uint64_t pgno = static_cast<uint64_t>(at / psize_);
    const std::string where = PageName(pgno);
    if (Get<uint16_t>(p + 10) & kPageLeaf2) Fail(where + " is a LEAF2 page in the main database");
    const size_t n = NumKeys(p, static_cast<size_t>(psize_), where);
    for (size_t i = 0; i < n; ++i) {
      const size_t off = Node(p, static_cast<size_t>(psize_), i, where);
      const uint32_t dsize = uint32_t{Get<uint16_t>(p + off)} | uint32_t{Get<uint16_t>(p + off + 2)} << 16;
      const uint16_t flags = Get<uint16_t>(p + off + 4);
      const size_t ksize = Get<uint16_t>(p + off + 6);
      const uint8_t* key = p + off + kNodeHeader;
      const size_t data = off + kNodeHeader + ksize;  // the node's data, in the page
      const std::string entry = where + ", entry " + std::to_string(i);
      if (flags & kNodeBigData) {
        if (flags & (kNodeDupData | kNodeSubData)) Fail(entry + " has contradictory flags");
        if (data + 8 > static_cast<size_t>(psize_)) Fail(entry + ": its overflow page number is outside the page");
        const uint64_t first = Get<uint64_t>(p + data);
        const uint64_t need = (kPageHeader + uint64_t{dsize} + static_cast<uint64_t>(psize_) - 1) / static_cast<uint64_t>(psize_);
        if (first < 2 || first >= pages_ || need > pages_ - first)
          Fail(entry + ": its " + std::to_string(dsize) + "-byte value on overflow page " + std::to_string(first) +
               " is not inside the file (" + std::to_string(pages_) + " pages: truncated?)");
        Emit(key, ksize, static_cast<int64_t>(first), dsize, true);
        continue;
      }
      if (data + dsize > static_cast<size_t>(psize_)) Fail(entry + ": its " + std::to_string(dsize) + "-byte value is outside the page");
      if (!(flags & kNodeDupData)) {  // a value (or, with F_SUBDATA, a named database's record, as MDB_NEXT gives it)
        Emit(key, ksize, at + static_cast<int64_t>(data), dsize, false);
        continue;
      }
      if (!dupsort_) Fail(entry + " holds duplicates, but the database is not MDB_DUPSORT");
      if (flags & kNodeSubData) {  // the duplicates are a tree of their own
        if (dsize != kDbRecord) Fail(entry + ": its duplicates' database record has " + std::to_string(dsize) + " bytes");
        const DbRecord sub = ParseDb(p + data);
        if (sub.root == kNoPage) Fail(entry + ": its duplicates' database has no root page");
        const uint64_t before = count_;
        WalkTree(sub, "the duplicates of " + entry,
                 [&](const uint8_t* leaf, int64_t leaf_at) { DupLeaf(key, ksize, leaf, static_cast<size_t>(psize_), leaf_at, sub.pad, PageName(static_cast<uint64_t>(leaf_at / psize_))); });
        if (count_ - before != sub.entries)
          Fail(entry + ": its duplicates' database records " + std::to_string(sub.entries) + " entries, " +
               std::to_string(count_ - before) + " were found");
        continue;
      }
      // The duplicates are a sub-page inside the node's data.
      if (dsize < kPageHeader) Fail(entry + ": its duplicates' sub-page has " + std::to_string(dsize) + " bytes");
      DupLeaf(key, ksize, p + data, dsize, at + static_cast<int64_t>(data), Get<uint16_t>(p + data + 8),
              entry + "'s duplicates");
    }
  }

  // A leaf page of duplicates (a sub-page or a page of a duplicates' tree) of `size` bytes at file
  // offset `at`: every entry's key is a value of `key`. ks: a LEAF2 page's value size.
  void DupLeaf(const uint8_t* key, size_t ksize, const uint8_t* p, size_t size, int64_t at, size_t ks,
               const std::string& where) {
    const uint16_t flags = Get<uint16_t>(p + 10);
    if (!(flags & kPageLeaf)) Fail(where + " is not a leaf page");
    if (flags & kPageLeaf2) {
      const size_t lower = Get<uint16_t>(p + 12);
      if (lower < kPageHeader || lower > size || (lower - kPageHeader) % 2 != 0) Fail(where + ": its entry count is outside the page");
      const size_t n = (lower - kPageHeader) / 2;
      if (n == 0) Fail(where + " holds no entries");
      if (ks == 0 || ks > size || kPageHeader + n * ks > size)
        Fail(where + ": " + std::to_string(n) + " values of " + std::to_string(ks) + " bytes are outside its " +
             std::to_string(size) + " bytes");
      for (size_t i = 0; i < n; ++i)
        Emit(key, ksize, at + static_cast<int64_t>(kPageHeader + i * ks), static_cast<uint32_t>(ks), false);
      return;
    }
    const size_t n = NumKeys(p, size, where);
    for (size_t i = 0; i < n; ++i) {
      const size_t off = Node(p, size, i, where);
      Emit(key, ksize, at + static_cast<int64_t>(off + kNodeHeader), Get<uint16_t>(p + off + 6), false);
    }
  }

  void Emit(const uint8_t* key, size_t ksize, int64_t pos, uint32_t size, bool overflow) {
    ++count_;
    emit_(Found{key, ksize, pos, size, overflow});
  }

  const ByteSource& src_;
  const std::string& name_;
  const int64_t psize_;
  const uint64_t pages_;
  std::vector<bool> seen_;
  const std::function<void(const Found&)>& emit_;
  bool dupsort_ = false;
  uint64_t count_ = 0;
};

}  // namespace

struct LmdbDataset::Db {
  std::string path;
  std::unique_ptr<ByteSource> src;
  int64_t psize = 0;
};

LmdbDataset::LmdbDataset() = default;
LmdbDataset::~LmdbDataset() = default;

void LmdbDataset::Open(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot open LMDB database '" + path + "': " + std::strerror(errno));
  const std::string file = S_ISDIR(st.st_mode) ? path + (path.empty() || path.back() == '/' ? "" : "/") + "data.mdb" : path;
  std::unique_ptr<ByteSource> src;
  try {
    src = std::make_unique<FileSource>(file, /*use_mmap=*/false, /*read_ahead=*/false);
  } catch (const Error& e) {
    throw Error("cannot open LMDB database '" + path + "': " + e.message());
  }
  Open(std::move(src), file);
}

void LmdbDataset::Open(std::unique_ptr<ByteSource> source, const std::string& name) {
  auto db = std::make_unique<Db>();
  db->path = name;
  db->src = std::move(source);
  const ByteSource& src = *db->src;
  const int64_t size = src.size();
  auto fail = [&](const std::string& why) -> void { throw Error("LMDB database '" + name + "': " + why); };
  if (size < static_cast<int64_t>(kMetaEnd))
    fail("not an LMDB data file (" + std::to_string(size) + " bytes, too short for its meta page)");
  // The two meta pages; liblmdb takes the page size from the first, the tree from the newer.
  uint8_t meta[2][kMetaEnd];
  int64_t psize = 0;
  for (int m = 0; m < 2; ++m) {
    const int64_t at = m * psize;
    if (at + static_cast<int64_t>(kMetaEnd) > size)
      fail("truncated: " + std::to_string(size) + " bytes, shorter than its two meta pages of " + std::to_string(psize) +
           " bytes");
    src.ReadAt(at, kMetaEnd, meta[m]);
    const uint8_t* p = meta[m];
    const std::string page = "meta page " + std::to_string(m);
    if (!(Get<uint16_t>(p + 10) & kPageMeta) || Get<uint32_t>(p + kPageHeader) != kMagic)
      fail("not an LMDB data file (" + page + " lacks LMDB's meta flag or magic number)");
    if (Get<uint32_t>(p + kPageHeader + 4) != kDataVersion)
      fail(page + " has data format version " + std::to_string(Get<uint32_t>(p + kPageHeader + 4)) +
           ", this reader reads version " + std::to_string(kDataVersion));
    if (m == 0) {
      psize = ParseDb(p + kMetaDbs).pad;
      if (psize < 512 || psize > 65536 || !std::has_single_bit(static_cast<uint64_t>(psize)))
        fail("is corrupt: meta page 0 records a page size of " + std::to_string(psize) +
             " (a power of two from 512 to 65536)");
    }
  }
  if (size < 2 * psize)
    fail("truncated: " + std::to_string(size) + " bytes, shorter than its two meta pages of " + std::to_string(psize) +
         " bytes");
  const auto txnid = [&](int m) { return Get<uint64_t>(meta[m] + kMetaEnd - 8); };
  const int newest = txnid(0) < txnid(1) ? 1 : 0;
  const DbRecord main = ParseDb(meta[newest] + kMetaDbs + kDbRecord);
  // liblmdb writes every page up to the last one it allocated: a file holding fewer pages was cut.
  const uint64_t last_pg = Get<uint64_t>(meta[newest] + kMetaEnd - 16);
  const uint64_t file_pages = static_cast<uint64_t>(size / psize);
  if (last_pg >= file_pages)
    fail("truncated: meta page " + std::to_string(newest) + " records pages up to " + std::to_string(last_pg) +
         ", the file holds " + std::to_string(file_pages) + " pages of " + std::to_string(psize) + " bytes");
  db->psize = psize;

  const int32_t index = static_cast<int32_t>(dbs_.size());
  const size_t first_sample = samples_.size(), first_key = keys_.size();
  try {
    const std::function<void(const Found&)> emit = [&](const Found& f) {
      samples_.push_back(Sample{index, static_cast<uint32_t>(f.key_len), static_cast<int64_t>(keys_.size()),
                                f.value_pos, f.value_size, f.overflow});
      keys_.append(reinterpret_cast<const char*>(f.key), f.key_len);
    };
    Walker walker(src, name, psize, emit);
    const uint64_t found = walker.WalkMain(main);
    if (found != main.entries)
      walker.Fail("meta page " + std::to_string(newest) + " records " + std::to_string(main.entries) +
                  " entries, the tree holds " + std::to_string(found));
  } catch (...) {
    samples_.resize(first_sample);
    keys_.resize(first_key);
    throw;
  }
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
  if (!s.overflow) {
    out.resize(s.value_size);
    db.src->ReadAt(s.value_pos, out.size(), out.data());
    return;
  }
  // A value on overflow pages: the first page's header says so and counts enough pages.
  uint8_t header[kPageHeader];
  const int64_t at = s.value_pos * db.psize;
  db.src->ReadAt(at, sizeof header, header);
  const uint64_t need = (kPageHeader + uint64_t{s.value_size} + static_cast<uint64_t>(db.psize) - 1) / static_cast<uint64_t>(db.psize);
  if (Get<uint64_t>(header) != static_cast<uint64_t>(s.value_pos) || !(Get<uint16_t>(header + 10) & kPageOverflow) ||
      Get<uint32_t>(header + 12) < need)
    throw Error("LMDB database '" + db.path + "' is corrupt: the value of key '" + key_of(i) + "' (" +
                std::to_string(s.value_size) + " bytes) should start on overflow page " + std::to_string(s.value_pos) +
                " (offset " + std::to_string(at) + "), which is not an overflow page of " + std::to_string(need) +
                " pages");
  out.resize(s.value_size);
  db.src->ReadAt(at + static_cast<int64_t>(kPageHeader), out.size(), out.data());
}

}  // namespace sluice
