// What the readers call to read a dataset path, whatever it names: a local file (the code they
// had: FileSource, pread, mmap), an S3 object (s3://bucket/key) or an HTTP(S) URL.
//
// Network reads are overlapped with decoding by the reader's loader thread, which fills up to
// prefetch_queue_depth batches ahead (reader_operator.h): that queue is the read-ahead, and its
// depth times the batch's bytes is the memory bound on what is in flight. Within a batch, the
// ranges a reader needs go out together (ReadRanges): neighbours in one object are coalesced
// into one GET (a sequential pass over a shard streams it in requests of up to 16 MiB), and the
// GETs run in parallel on a process-wide pool of SLUICE_STORAGE_CONNECTIONS threads, each keeping
// its keep-alive connections. Retries and timeouts: retry.h.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "readers/storage/file_source.h"
#include "readers/storage/url.h"

namespace sluice {

// A local FileSource (use_mmap, read_ahead as before) or a RemoteSource. Throws sluice::Error
// naming the path if it cannot be opened.
std::unique_ptr<ByteSource> OpenByteSource(const std::string& path, bool use_mmap, bool read_ahead);

// The whole content of a small file (an index, a file list), local or remote.
std::string ReadWholeFile(const std::string& path);
// Writes a whole file: local, or an S3 object (PUT).
void WriteWholeFile(const std::string& path, const std::string& data);

// One read of a batch. `error` is set (and nothing thrown) if it failed.
struct RangeRead {
  const ByteSource* source = nullptr;
  int64_t offset = 0;
  size_t size = 0;
  void* dst = nullptr;
  std::string error;  // empty: read
};
// Performs every read. Local sources are read in order on the calling thread; remote ones are
// grouped per object, coalesced and fetched in parallel. A failure is recorded in its reads'
// `error` (a coalesced GET that fails fails all its reads), never thrown.
void ReadRanges(std::vector<RangeRead>& reads);

// Whole files fetched in parallel (readers.file and readers.numpy for remote paths). Local paths
// are read too (on the calling thread). Failures are recorded per file.
struct FetchedFile {
  std::string data;
  std::string error;  // empty: fetched
};
std::vector<FetchedFile> FetchFiles(const std::vector<std::string>& paths);

// The objects below an s3:// prefix ("s3://bucket/dir" lists "dir/..."), as full s3:// paths
// sorted by key. Throws for http(s) (no listing) and on failure.
std::vector<std::string> ListRemoteTree(const std::string& prefix);

}  // namespace sluice
