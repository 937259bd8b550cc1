// Random access to bytes: a file read with pread or through mmap, or a block of memory.
//
// Readers and the tar parser read through ByteSource, so the parsers have an in-memory entry point
// (tests, fuzzers) and the readers choose mmap or pread (dont_use_mmap) and read-ahead in one place.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace sluice {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual int64_t size() const = 0;
  // Copies [offset, offset + len) to dst. Throws sluice::Error naming the source and the offset if
  // the range is outside the source or the read fails. Thread-safe (no shared file position).
  virtual void ReadAt(int64_t offset, size_t len, void* dst) const = 0;
  // The whole content when it is in memory (mapped files, memory sources), else nullptr.
  virtual const uint8_t* data() const { return nullptr; }
  // For messages: the file path or a description.
  virtual const std::string& name() const = 0;

 protected:
  // Throws the out-of-range error if [offset, offset + len) is not inside [0, size()).
  void CheckRange(int64_t offset, size_t len) const;
};

// Not owned: the bytes must outlive the source.
class MemorySource : public ByteSource {
 public:
  MemorySource(const void* data, size_t size, std::string name = "<memory>")
      : data_(static_cast<const uint8_t*>(data)), size_(size), name_(std::move(name)) {}
  int64_t size() const override { return static_cast<int64_t>(size_); }
  void ReadAt(int64_t offset, size_t len, void* dst) const override;
  const uint8_t* data() const override { return data_; }
  const std::string& name() const override { return name_; }

 private:
  const uint8_t* data_;
  size_t size_;
  std::string name_;
};

// An open file. use_mmap maps it read-only (falling back to pread if mapping fails, e.g. for an
// empty file); read_ahead asks the kernel to read the whole file ahead (madvise/posix_fadvise
// WILLNEED). Throws sluice::Error naming the path if it cannot be opened or is not a regular file.
//
// The file may change while it is open (a shard rewritten or truncated in place mid-epoch). Each
// ReadAt first checks (fstat, well under a microsecond) that its size and modification time are
// those it had when opened, and throws naming the path otherwise: offsets taken from the old
// content never read the new one (a wrong sample under a right label), and a mapping is never read
// past a shrunk end (SIGBUS). The window left is the copy itself, microseconds long. A file
// replaced by rename keeps being read as it was opened (the old inode stays alive).
class FileSource : public ByteSource {
 public:
  FileSource(std::string path, bool use_mmap, bool read_ahead);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  int64_t size() const override { return size_; }
  void ReadAt(int64_t offset, size_t len, void* dst) const override;
  const uint8_t* data() const override { return map_; }
  const std::string& name() const override { return path_; }

 private:
  void CheckUnchanged() const;

  std::string path_;
  int fd_ = -1;
  int64_t size_ = 0;
  int64_t mtime_ns_ = 0;  // modification time when opened
  uint8_t* map_ = nullptr;
};

// Reads whole small files (readers.file): open, size, then copy into a buffer the caller provides
// once it knows the size. Reuses nothing but is free of heap allocation.
class WholeFile {
 public:
  // Opens `path` (which must outlive this object); throws sluice::Error naming it on failure.
  WholeFile(const std::string& path, bool read_ahead);
  WholeFile() = default;  // no file (size 0)
  ~WholeFile();
  WholeFile(WholeFile&& o) noexcept;
  WholeFile& operator=(WholeFile&& o) noexcept;
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;

  int64_t size() const { return size_; }
  // Copies the whole file to dst (size() bytes) with mmap+memcpy or with read().
  void ReadAll(void* dst, bool use_mmap) const;

 private:
  const std::string* path_ = nullptr;
  int fd_ = -1;
  int64_t size_ = 0;
};

}  // namespace sluice
