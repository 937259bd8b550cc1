#include "readers/common/file_root_index.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <limits>
#include <string_view>
#include <thread>
#include <utility>

#include <sluice/error.h>

#include "readers/common/file_name_filter.h"
#include "readers/common/remote_listing.h"
#include "readers/storage/url.h"

namespace sluice {

namespace {

// What a folder entry is, following symbolic links as stat(2) does.
enum class Kind { kDir, kRegular, kOther };

Kind KindOfStat(int dirfd, const char* name) {
  struct stat st;
  if (::fstatat(dirfd, name, &st, 0) != 0) return Kind::kOther;
  if (S_ISDIR(st.st_mode)) return Kind::kDir;
  return S_ISREG(st.st_mode) ? Kind::kRegular : Kind::kOther;
}

// Reads a folder's entries (without "." and "..") and tells what each is. The entry's d_type is
// trusted for directories and regular files once one stat in this folder succeeded: the listing
// before stat'ed every path, and a folder that can be read but not searched (mode r--) made every
// stat fail; such a folder still gets a stat per entry, so its entries count as nothing, as before.
class FolderReader {
 public:
  // Takes ownership of fd (a folder opened for reading); returns false (errno set) if it fails.
  bool Open(int fd) {
    dir_ = ::fdopendir(fd);
    if (!dir_) {
      const int err = errno;
      ::close(fd);
      errno = err;
    }
    return dir_ != nullptr;
  }
  ~FolderReader() {
    if (dir_) ::closedir(dir_);
  }
  int fd() const { return ::dirfd(dir_); }
  // The next entry's name, or nullptr at the end.
  const dirent* Next() {
    while (const dirent* e = ::readdir(dir_)) {
      const char* n = e->d_name;
      if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
      return e;
    }
    return nullptr;
  }
  Kind KindOf(const dirent* e) {
    if ((e->d_type == DT_DIR || e->d_type == DT_REG) && !stat_every_entry_) {
      if (verified_) return e->d_type == DT_DIR ? Kind::kDir : Kind::kRegular;
      struct stat st;
      if (::fstatat(fd(), e->d_name, &st, 0) == 0) {
        verified_ = true;
        if (S_ISDIR(st.st_mode)) return Kind::kDir;
        return S_ISREG(st.st_mode) ? Kind::kRegular : Kind::kOther;
      }
      stat_every_entry_ = true;
      return Kind::kOther;
    }
    if (e->d_type == DT_LNK || e->d_type == DT_UNKNOWN || stat_every_entry_) return KindOfStat(fd(), e->d_name);
    return Kind::kOther;  // fifos, sockets, devices
  }

 private:
  DIR* dir_ = nullptr;
  bool verified_ = false;
  bool stat_every_entry_ = false;
};

// stat(2) and opendir(3) of a path this long fail with ENAMETOOLONG; the listing opens entries
// relative to their folder, so it checks the full length itself to keep those entries out.
bool TooLong(size_t path_length) { return path_length >= PATH_MAX; }

// The matching regular files of one class folder, names sorted in byte order.
struct ClassFiles {
  std::string names;                                  // back to back
  std::vector<std::pair<uint32_t, uint32_t>> sorted;  // (offset, length) into names
  std::exception_ptr error;
};

// Sorts the names of a folder. ImageNet's names share a long prefix ("n01440764_"), so each is
// compared by the 8 bytes after the folder's common prefix as one integer first (most comparisons
// end there), then by the rest.
void SortNames(ClassFiles* files) {
  auto& spans = files->sorted;
  if (spans.size() < 2) return;
  const char* base = files->names.data();
  auto name = [base](const std::pair<uint32_t, uint32_t>& s) { return std::string_view(base + s.first, s.second); };
  size_t common = name(spans[0]).size();
  for (const auto& s : spans) {
    const std::string_view n = name(s), first = name(spans[0]);
    size_t i = 0;
    while (i < common && i < n.size() && n[i] == first[i]) ++i;
    common = i;
  }
  struct Key {
    uint64_t head;  // bytes [common, common + 8), big-endian, zero-padded (names hold no NUL)
    std::pair<uint32_t, uint32_t> span;
  };
  std::vector<Key> keys(spans.size());
  for (size_t k = 0; k < spans.size(); ++k) {
    const std::string_view n = name(spans[k]);
    uint64_t head = 0;
    for (size_t i = 0; i < 8; ++i)
      head = head << 8 | (common + i < n.size() ? static_cast<unsigned char>(n[common + i]) : 0u);
    keys[k] = {head, spans[k]};
  }
  const size_t skip = common + 8;
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.head != b.head) return a.head < b.head;
    const std::string_view x = name(a.span), y = name(b.span);
    return x.substr(std::min(skip, x.size())) < y.substr(std::min(skip, y.size()));
  });
  for (size_t k = 0; k < spans.size(); ++k) spans[k] = keys[k].span;
}

void ListClass(int root_fd, const std::string& root_prefix, const std::string& cls, const FileNameFilter& filter,
               ClassFiles* out) {
  const size_t dir_length = root_prefix.size() + cls.size();
  FolderReader folder;
  const int fd = TooLong(dir_length) ? (errno = ENAMETOOLONG, -1)
                                     : ::openat(root_fd, cls.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 || !folder.Open(fd))
    throw Error("cannot open class folder '" + root_prefix + cls + "': " + std::strerror(errno));
  while (const dirent* e = folder.Next()) {
    const std::string_view name(e->d_name);
    if (!filter.Matches(name)) continue;
    if (TooLong(dir_length + 1 + name.size()) || folder.KindOf(e) != Kind::kRegular) continue;
    if (out->names.size() + name.size() > std::numeric_limits<uint32_t>::max())
      throw Error("class folder '" + root_prefix + cls + "' has more than 4 GiB of file names");
    out->sorted.emplace_back(static_cast<uint32_t>(out->names.size()), static_cast<uint32_t>(name.size()));
    out->names.append(name);
  }
  SortNames(out);
  out->names.shrink_to_fit();  // kept as the list's block
}

int UsableCpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Runs fn(i) for i in [0, n) on up to `threads` threads (this one included). fn must not throw.
template <typename F>
void ParallelFor(size_t n, int threads, const F& fn) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// Appends to *out the paths relative to the root (`rel`: the open folder `fd`'s own, "" for the
// root; owned) of the regular files below that folder whose names match, recursing into
// subfolders. `ancestors` holds the folders being listed, from the root down, to refuse a link to
// one of them.
void ListTree(int fd, const std::string& root, const std::string& rel, const FileNameFilter& filter,
              std::vector<std::pair<dev_t, ino_t>>& ancestors, std::vector<std::string>* out) {
  const std::string folder_path = rel.empty() ? root : JoinPath(root, rel);
  FolderReader folder;
  struct stat st;
  if (fd < 0 || !folder.Open(fd) || ::fstat(folder.fd(), &st) != 0)
    throw Error("cannot open folder '" + folder_path + "': " + std::strerror(errno));
  const std::pair<dev_t, ino_t> id{st.st_dev, st.st_ino};
  if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end())
    throw Error("folder '" + folder_path + "' is a link to a folder that contains it (a loop)");
  ancestors.push_back(id);
  const std::string rel_prefix = rel.empty() ? "" : rel + "/";
  while (const dirent* e = folder.Next()) {
    const std::string_view name(e->d_name);
    if (TooLong(folder_path.size() + 1 + name.size())) continue;
    const Kind kind = folder.KindOf(e);
    if (kind == Kind::kDir) {
      const int sub = ::openat(folder.fd(), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
      ListTree(sub, root, rel_prefix + e->d_name, filter, ancestors, out);
    } else if (kind == Kind::kRegular && filter.Matches(name)) {
      out->push_back(rel_prefix + e->d_name);
    }
  }
  ancestors.pop_back();
}

std::string JoinFilters(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

FileLabelList IndexFileRoot(const std::string& root, const std::vector<std::string>& filters, bool case_sensitive,
                            int max_threads) {
  if (IsRemotePath(root)) return IndexRemoteFileRoot(root, filters, case_sensitive);
  // Every path is root + "/" + class + "/" + file (JoinPath's rule: no second '/' after a root
  // that ends in one).
  const std::string prefix = root.empty() || root.back() == '/' ? root : root + "/";
  // opendir's flags: a path that is not a folder fails with ENOTDIR, as it did there.
  const int root_fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  FolderReader root_reader;
  if (root_fd < 0 || !root_reader.Open(root_fd))
    throw Error("cannot open file_root '" + root + "': " + std::strerror(errno));

  std::vector<std::string> classes;
  while (const dirent* e = root_reader.Next()) {
    const size_t length = std::strlen(e->d_name);
    if (!TooLong(prefix.size() + length) && root_reader.KindOf(e) == Kind::kDir) classes.emplace_back(e->d_name, length);
  }
  std::sort(classes.begin(), classes.end());  // byte order: the labels

  const FileNameFilter filter(filters, case_sensitive);
  std::vector<ClassFiles> lists(classes.size());
  const int threads = static_cast<int>(std::min<size_t>(
      {static_cast<size_t>(max_threads > 0 ? max_threads : std::min(UsableCpus(), 8)), (classes.size() + 7) / 8}));
  ParallelFor(classes.size(), std::max(1, threads), [&](size_t c) {
    try {
      ListClass(root_reader.fd(), prefix, classes[c], filter, &lists[c]);
    } catch (...) {
      lists[c].error = std::current_exception();
    }
  });
  size_t files = 0;
  for (const ClassFiles& l : lists) {
    if (l.error) std::rethrow_exception(l.error);  // the first failing class, as a serial listing
    files += l.sorted.size();
  }
  if (files == 0)
    throw Error("no files matching file_filters [" + JoinFilters(filters) + "] in the class folders of file_root '" +
                root + "' (" + std::to_string(classes.size()) + " class folders)");

  // The list is sorted by "class/file". Two paths of different classes compare as "class/" does
  // (a class name is never followed by its own '/' inside another class name), so the classes'
  // blocks go in the order of "class/" and each block in its names' order.
  std::vector<uint32_t> blocks(classes.size());
  for (size_t c = 0; c < blocks.size(); ++c) blocks[c] = static_cast<uint32_t>(c);
  std::sort(blocks.begin(), blocks.end(), [&](uint32_t a, uint32_t b) {
    const std::string& x = classes[a];
    const std::string& y = classes[b];
    const size_t n = std::min(x.size(), y.size());
    const int cmp = std::string_view(x).substr(0, n).compare(std::string_view(y).substr(0, n));
    if (cmp != 0) return cmp < 0;
    // One is a prefix of the other: compare '/' with the longer one's next character.
    if (x.size() < y.size()) return static_cast<unsigned char>('/') < static_cast<unsigned char>(y[n]);
    return static_cast<unsigned char>(x[n]) < static_cast<unsigned char>('/');
  });
  // Each class folder's names become one block of the list as they are (no copy).
  FileLabelList out(prefix);
  out.Reserve(files, 0);
  for (uint32_t c : blocks) {
    ClassFiles& l = lists[c];
    const uint32_t block = out.AddBlock(classes[c] + "/", std::move(l.names));
    for (const auto& [offset, length] : l.sorted) out.AddFromBlock(block, offset, length, static_cast<int32_t>(c));
    l.sorted = {};
  }
  return out;
}

std::vector<std::string> ListFileTree(const std::string& root, const std::vector<std::string>& filters,
                                      bool case_sensitive) {
  if (IsRemotePath(root)) return ListRemoteFileTree(root, filters, case_sensitive);
  const FileNameFilter filter(filters, case_sensitive);
  std::vector<std::pair<dev_t, ino_t>> ancestors;
  std::vector<std::string> paths;
  ListTree(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK), root, "", filter, ancestors, &paths);
  std::sort(paths.begin(), paths.end());  // relative paths, then made full
  for (std::string& p : paths) p = JoinPath(root, p);
  return paths;
}

std::vector<FileLabel> ListFileRoot(const std::string& root, const std::vector<std::string>& filters,
                                    bool case_sensitive) {
  return IndexFileRoot(root, filters, case_sensitive).ToVector();
}

}  // namespace sluice
