#include "readers/storage/storage.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <sluice/error.h>

#include "core/thread_pool.h"
#include "readers/storage/remote_source.h"

namespace sluice {

namespace {

// The pool the network requests run on: its threads keep their connections between batches.
// Created at first use with SLUICE_STORAGE_CONNECTIONS threads; never pinned to CPUs (they wait
// on the network). ThreadPool runs one loop at a time: two readers' batches take turns. A process
// forked after the pool started (DataLoader workers) has none of its threads: it makes its own. The
// pools are never destroyed (a forked child's copy cannot be joined), so none is torn down while a
// reader's loader thread may still use it at exit.
ThreadPool& NetworkPool(int threads) {
  static std::mutex mu;
  static ThreadPool* pool = nullptr;
  static pid_t owner = 0;
  std::lock_guard<std::mutex> lock(mu);
  if (!pool || owner != ::getpid()) {
    pool = new ThreadPool(threads, /*set_affinity=*/false);
    owner = ::getpid();
  }
  return *pool;
}

std::string ReadLocal(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw Error("cannot read '" + path + "'");
  return ss.str();
}

// A coalesced GET: reads [first, last) of `reads` (sorted by offset, one object).
struct Group {
  const RemoteSource* source;
  size_t first, last;
  int64_t begin, end;
};

}  // namespace

std::unique_ptr<ByteSource> OpenByteSource(const std::string& path, bool use_mmap, bool read_ahead) {
  if (!IsRemotePath(path)) return std::make_unique<FileSource>(path, use_mmap, read_ahead);
  return std::make_unique<RemoteSource>(path, StorageOptionsFromEnv());
}

std::string ReadWholeFile(const std::string& path) {
  if (!IsRemotePath(path)) return ReadLocal(path);
  return RemoteObject(path, StorageOptionsFromEnv()).ReadAll();
}

void WriteWholeFile(const std::string& path, const std::string& data) {
  if (IsRemotePath(path)) {
    RemoteObject(path, StorageOptionsFromEnv()).Put(data);
    return;
  }
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw Error("cannot write '" + path + "'");
}

void ReadRanges(std::vector<RangeRead>& reads) {
  // Local reads in order; remote ones indexed for grouping.
  std::vector<size_t> remote;
  for (size_t i = 0; i < reads.size(); ++i) {
    RangeRead& r = reads[i];
    r.error.clear();
    if (r.size == 0) continue;
    if (dynamic_cast<const RemoteSource*>(r.source)) {
      remote.push_back(i);
      continue;
    }
    try {
      r.source->ReadAt(r.offset, r.size, r.dst);
    } catch (const Error& e) {
      r.error = e.message();
    }
  }
  if (remote.empty()) return;
  std::sort(remote.begin(), remote.end(), [&](size_t a, size_t b) {
    if (reads[a].source != reads[b].source) return reads[a].source < reads[b].source;
    return reads[a].offset < reads[b].offset;
  });
  const auto* first = static_cast<const RemoteSource*>(reads[remote[0]].source);
  const StorageOptions& opt = first->object().options();
  std::vector<Group> groups;
  for (size_t k = 0; k < remote.size(); ++k) {
    const RangeRead& r = reads[remote[k]];
    const auto* src = static_cast<const RemoteSource*>(r.source);
    const int64_t end = r.offset + static_cast<int64_t>(r.size);
    if (!groups.empty()) {
      Group& g = groups.back();
      if (g.source == src && r.offset <= g.end + opt.coalesce_gap && end - g.begin <= opt.max_request_bytes) {
        g.last = k + 1;
        g.end = std::max(g.end, end);
        continue;
      }
    }
    groups.push_back({src, k, k + 1, r.offset, end});
  }
  NetworkPool(opt.connections).ParallelFor(static_cast<int>(groups.size()), [&](int gi, int) {
    const Group& g = groups[static_cast<size_t>(gi)];
    try {
      g.source->CheckInside(g.begin, g.end);
      if (g.last - g.first == 1) {
        RangeRead& r = reads[remote[g.first]];
        g.source->object().ReadRange(r.offset, r.size, r.dst);
        return;
      }
      std::string buf(static_cast<size_t>(g.end - g.begin), '\0');
      g.source->object().ReadRange(g.begin, buf.size(), buf.data());
      for (size_t k = g.first; k < g.last; ++k) {
        RangeRead& r = reads[remote[k]];
        std::memcpy(r.dst, buf.data() + (r.offset - g.begin), r.size);
      }
    } catch (const std::exception& e) {
      const Error* se = dynamic_cast<const Error*>(&e);
      for (size_t k = g.first; k < g.last; ++k) reads[remote[k]].error = se ? se->message() : e.what();
    }
  });
}

std::vector<FetchedFile> FetchFiles(const std::vector<std::string>& paths) {
  std::vector<FetchedFile> out(paths.size());
  std::vector<size_t> remote;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (IsRemotePath(paths[i])) {
      remote.push_back(i);
      continue;
    }
    try {
      out[i].data = ReadLocal(paths[i]);
    } catch (const Error& e) {
      out[i].error = e.message();
    }
  }
  if (remote.empty()) return out;
  const StorageOptions opt = StorageOptionsFromEnv();
  NetworkPool(opt.connections).ParallelFor(static_cast<int>(remote.size()), [&](int k, int) {
    FetchedFile& f = out[remote[static_cast<size_t>(k)]];
    try {
      f.data = RemoteObject(paths[remote[static_cast<size_t>(k)]], opt).ReadAll();
    } catch (const std::exception& e) {
      const Error* se = dynamic_cast<const Error*>(&e);
      f.error = se ? se->message() : e.what();
    }
  });
  return out;
}

std::vector<std::string> ListRemoteTree(const std::string& prefix) {
  RemoteObject dir(prefix, StorageOptionsFromEnv());
  std::string p = prefix;
  const RemoteUrl u = ParseRemoteUrl(prefix);
  // "s3://b/dir" lists "dir/..." (a folder), not "dir2/...".
  std::string key = u.key;
  if (!key.empty() && key.back() != '/') key += '/';
  RemoteObject folder("s3://" + u.bucket + "/" + key, dir.options());
  std::vector<std::string> out;
  for (const S3Object& o : folder.List())
    if (!o.key.empty() && o.key.back() != '/') out.push_back("s3://" + u.bucket + "/" + o.key);
  return out;
}

}  // namespace sluice
