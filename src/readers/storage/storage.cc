#include "readers/storage/storage.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <sluice/error.h>

#include "core/thread_pool.h"
#include "readers/storage/block_cache.h"
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

std::string BlockKey(const RemoteSource* src, int64_t block_bytes, int64_t index) {
  return src->object().path() + "#" + std::to_string(src->size()) + "#" + std::to_string(block_bytes) + "#" +
         std::to_string(index);
}

// ReadRanges with the block cache (block_cache.h): the blocks the batch needs and one past the
// furthest one per object are fetched in parallel if absent, then the reads are copied out of
// them. Returns false (nothing done) when the batch alone needs more than the cache holds.
bool ReadThroughBlockCache(std::vector<RangeRead>& reads, const std::vector<size_t>& remote,
                           const StorageOptions& opt) {
  const int64_t bs = opt.cache_block_bytes;
  struct Need {
    const RemoteSource* src;
    int64_t index;
    BlockCache::Block block;
    std::string error;
  };
  std::vector<Need> needs;
  std::map<std::pair<const RemoteSource*, int64_t>, size_t> where;
  std::map<const RemoteSource*, int64_t> furthest;
  auto need = [&](const RemoteSource* src, int64_t index) {
    if (index * bs >= src->size()) return;
    if (where.emplace(std::make_pair(src, index), needs.size()).second) needs.push_back({src, index, nullptr, ""});
  };
  for (size_t k : remote) {
    const RangeRead& r = reads[k];
    const auto* src = static_cast<const RemoteSource*>(r.source);
    if (r.offset < 0 || r.offset + static_cast<int64_t>(r.size) > src->size()) continue;  // ReadAt's error below
    const int64_t last = (r.offset + static_cast<int64_t>(r.size) - 1) / bs;
    for (int64_t b = r.offset / bs; b <= last; ++b) need(src, b);
    int64_t& f = furthest[src];
    f = std::max(f, last);
  }
  for (const auto& [src, f] : furthest) need(src, f + 1);  // read-ahead: the next block of the stream
  if (static_cast<int64_t>(needs.size()) * bs > opt.cache_bytes) return false;
  BlockCache& cache = BlockCache::Instance();
  std::vector<size_t> missing;
  for (size_t i = 0; i < needs.size(); ++i) {
    needs[i].block = cache.Get(BlockKey(needs[i].src, bs, needs[i].index));
    if (!needs[i].block) missing.push_back(i);
  }
  NetworkPool(opt.connections).ParallelFor(static_cast<int>(missing.size()), [&](int m, int) {
    Need& n = needs[missing[static_cast<size_t>(m)]];
    try {
      const int64_t begin = n.index * bs;
      auto block = std::make_shared<std::string>(static_cast<size_t>(std::min(bs, n.src->size() - begin)), '\0');
      n.src->object().ReadRange(begin, block->size(), block->data());
      n.block = block;
      cache.Put(BlockKey(n.src, bs, n.index), n.block, opt.cache_bytes);
    } catch (const std::exception& e) {
      const Error* se = dynamic_cast<const Error*>(&e);
      n.error = se ? se->message() : e.what();
    }
  });
  for (size_t k : remote) {
    RangeRead& r = reads[k];
    const auto* src = static_cast<const RemoteSource*>(r.source);
    if (r.offset < 0 || r.offset + static_cast<int64_t>(r.size) > src->size()) {
      try {
        src->CheckInside(r.offset, r.offset + static_cast<int64_t>(r.size));
      } catch (const Error& e) {
        r.error = e.message();
      }
      continue;
    }
    auto* out = static_cast<uint8_t*>(r.dst);
    int64_t pos = r.offset;
    const int64_t end = r.offset + static_cast<int64_t>(r.size);
    while (pos < end) {
      const Need& n = needs[where.at({src, pos / bs})];
      if (!n.error.empty()) {
        r.error = n.error;
        break;
      }
      const int64_t in_block = pos - n.index * bs;
      const int64_t len = std::min(end - pos, static_cast<int64_t>(n.block->size()) - in_block);
      std::memcpy(out, n.block->data() + in_block, static_cast<size_t>(len));
      out += len;
      pos += len;
    }
  }
  return true;
}

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
  if (opt.cache_bytes > 0 && ReadThroughBlockCache(reads, remote, opt)) return;
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
