#include "readers/storage/file_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <sluice/error.h>

namespace sluice {

namespace {

std::string Errno() { return std::strerror(errno); }

// pread until `len` bytes are read; throws on error or premature end of file.
void PreadAll(int fd, int64_t offset, size_t len, void* dst, const std::string& path) {
  auto* p = static_cast<uint8_t*>(dst);
  while (len > 0) {
    const ssize_t r = ::pread(fd, p, len, static_cast<off_t>(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + path + " at offset " + std::to_string(offset) + ": " + Errno());
    }
    if (r == 0)
      throw Error("unexpected end of file reading " + path + " at offset " + std::to_string(offset) +
                  " (the file shrank while being read?)");
    p += r;
    len -= static_cast<size_t>(r);
    offset += r;
  }
}

int64_t MtimeNs(const struct stat& st) { return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec; }

int OpenRegular(const std::string& path, int64_t* size, int64_t* mtime_ns = nullptr) {
  // O_NONBLOCK: a FIFO put where a file was would otherwise block open() until a writer comes (a
  // hang); it is refused below as not a regular file. Regular files ignore the flag.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot open " + path + ": " + Errno());
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const std::string err = Errno();
    ::close(fd);
    throw Error("cannot stat " + path + ": " + err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error("not a regular file: " + path);
  }
  *size = static_cast<int64_t>(st.st_size);
  if (mtime_ns) *mtime_ns = MtimeNs(st);
  return fd;
}

}  // namespace

void ByteSource::CheckRange(int64_t offset, size_t len) const {
  if (offset < 0 || offset > size() || static_cast<uint64_t>(size() - offset) < len)
    throw Error("read of " + std::to_string(len) + " bytes at offset " + std::to_string(offset) + " is outside " +
                name() + " (" + std::to_string(size()) + " bytes)");
}

void MemorySource::ReadAt(int64_t offset, size_t len, void* dst) const {
  CheckRange(offset, len);
  if (len) std::memcpy(dst, data_ + offset, len);
}

FileSource::FileSource(std::string path, bool use_mmap, bool read_ahead) : path_(std::move(path)) {
  fd_ = OpenRegular(path_, &size_, &mtime_ns_);
  if (use_mmap && size_ > 0) {
    void* m = ::mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_SHARED, fd_, 0);
    if (m != MAP_FAILED) {
      map_ = static_cast<uint8_t*>(m);
      if (read_ahead) ::madvise(m, static_cast<size_t>(size_), MADV_WILLNEED);
    }
  }
  if (!map_ && read_ahead) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_WILLNEED);
}

FileSource::~FileSource() {
  if (map_) ::munmap(map_, static_cast<size_t>(size_));
  if (fd_ >= 0) ::close(fd_);
}

void FileSource::CheckUnchanged() const {
  struct stat st;
  if (::fstat(fd_, &st) != 0) throw Error("cannot stat " + path_ + ": " + Errno());
  const int64_t size = static_cast<int64_t>(st.st_size);
  if (size != size_)
    throw Error(path_ + " changed size since it was opened (" + std::to_string(size_) + " -> " + std::to_string(size) +
                " bytes): it was truncated or rewritten in place while being read");
  if (MtimeNs(st) != mtime_ns_)
    throw Error(path_ + " was modified since it was opened (same size, new modification time): it was rewritten "
                "in place while being read, so its index no longer describes it");
}

void FileSource::ReadAt(int64_t offset, size_t len, void* dst) const {
  CheckRange(offset, len);
  if (len == 0) return;
  CheckUnchanged();
  if (map_) {
    std::memcpy(dst, map_ + offset, len);
  } else {
    PreadAll(fd_, offset, len, dst, path_);
  }
}

WholeFile::WholeFile(const std::string& path, bool read_ahead) : path_(&path) {
  fd_ = OpenRegular(path, &size_);
  if (read_ahead && size_ > 0) ::posix_fadvise(fd_, 0, 0, POSIX_FADV_WILLNEED);
}

WholeFile::~WholeFile() {
  if (fd_ >= 0) ::close(fd_);
}

WholeFile::WholeFile(WholeFile&& o) noexcept { *this = std::move(o); }

WholeFile& WholeFile::operator=(WholeFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    path_ = o.path_;
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
    o.size_ = 0;
  }
  return *this;
}

void WholeFile::ReadAll(void* dst, bool use_mmap) const {
  if (size_ == 0) return;
  if (use_mmap) {
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw Error("cannot stat " + *path_ + ": " + Errno());
    if (static_cast<int64_t>(st.st_size) < size_)
      throw Error(*path_ + " shrank while being read (" + std::to_string(size_) + " -> " + std::to_string(st.st_size) +
                  " bytes)");
    void* m = ::mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_SHARED, fd_, 0);
    if (m != MAP_FAILED) {
      std::memcpy(dst, m, static_cast<size_t>(size_));
      ::munmap(m, static_cast<size_t>(size_));
      return;
    }
  }
  PreadAll(fd_, 0, static_cast<size_t>(size_), dst, *path_);
}

}  // namespace sluice
