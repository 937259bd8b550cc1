#include "pipeline/sample_replacement.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <sluice/error.h>

#include "core/cuda/device.h"

namespace sluice {
namespace {

// `list` with row k taken from row map[k] (rows past the map stay).
void Remap(TensorList& list, const std::vector<int>& map, const MemoryConfig& memory, void* stream) {
  const int n = list.num_samples();
  std::vector<TensorShape> shapes(list.shapes());
  bool changed = false;
  for (int k = 0; k < n && k < static_cast<int>(map.size()); ++k) {
    const int r = map[static_cast<size_t>(k)];
    if (r == k || r >= n) continue;
    shapes[static_cast<size_t>(k)] = list.shape(r);
    changed = true;
  }
  if (!changed) return;
  const bool device = list.kind() == StorageKind::kDevice;
  if (list.has_views() && !list.is_contiguous()) {
    // Views (tensor_list.h) are never written through: row k becomes a view of row r instead.
    TensorList fresh(list.kind());
    fresh.ResizeViews(shapes, list.dtype());
    fresh.set_layout(list.layout());
    for (int k = 0; k < n; ++k) {
      const int r = k < static_cast<int>(map.size()) && map[static_cast<size_t>(k)] < n ? map[static_cast<size_t>(k)] : k;
      fresh.source(k) = list.source(r);
      fresh.ShareSample(k, list, r);
    }
    list = std::move(fresh);
    return;
  }
  if (shapes == list.shapes() && !list.has_views()) {
    // Same shapes (the usual case: batches of one image size, labels, random numbers): copied in
    // place, so the list keeps its buffers. Row k only takes rows that did not fail, which are
    // never written, so the order of the copies does not matter.
    for (int k = 0; k < n && k < static_cast<int>(map.size()); ++k) {
      const int r = map[static_cast<size_t>(k)];
      if (r == k || r >= n) continue;
      list.source(k) = list.source(r);
      const size_t bytes = list.sample_bytes(r);
      if (!bytes) continue;
      if (device) cuda::MemcpyAsync(list.raw_mutable_sample(k), list.raw_sample(r), bytes, stream);
      else std::memcpy(list.raw_mutable_sample(k), list.raw_sample(r), bytes);
    }
    if (device) cuda::StreamSynchronize(stream);
    return;
  }
  TensorList fresh(list.kind());
  fresh.Resize(shapes, list.dtype(), memory, list.is_contiguous());
  fresh.set_layout(list.layout());
  for (int k = 0; k < n; ++k) {
    const int r = k < static_cast<int>(map.size()) && map[static_cast<size_t>(k)] < n ? map[static_cast<size_t>(k)] : k;
    fresh.source(k) = list.source(r);
    const size_t bytes = list.sample_bytes(r);
    if (!bytes) continue;
    if (device) cuda::MemcpyAsync(fresh.raw_mutable_sample(k), list.raw_sample(r), bytes, stream);
    else std::memcpy(fresh.raw_mutable_sample(k), list.raw_sample(r), bytes);
  }
  if (device) cuda::StreamSynchronize(stream);  // the old buffers go now; replacements are rare
  list = std::move(fresh);
}

}  // namespace

void ReplaceFailedRows(std::vector<FailedSample>& failed, const std::vector<std::shared_ptr<TensorList>>& outputs,
                       const MemoryConfig& memory, void* stream) {
  if (failed.empty()) return;
  int n = 0;
  for (const auto& o : outputs) n = std::max(n, o->num_samples());
  std::set<int> bad;
  for (const auto& f : failed) {
    bad.insert(f.record.sample);
    n = std::max(n, f.record.sample + 1);
  }
  std::vector<int> ok;
  for (int i = 0; i < n; ++i)
    if (!bad.count(i)) ok.push_back(i);
  if (ok.empty()) {
    const SampleErrorRecord& first = failed.front().record;
    Error::Context c;
    c.op = first.op;
    c.iteration = first.iteration;
    c.sample = first.sample;
    c.source = first.source;
    throw Error("every sample of the batch failed (on_error=\"replace\" needs at least one good sample); first error: " +
                    first.error,
                c);
  }
  std::vector<int> map(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (!bad.count(i)) {
      map[static_cast<size_t>(i)] = i;
      continue;
    }
    auto it = std::upper_bound(ok.begin(), ok.end(), i);
    map[static_cast<size_t>(i)] = it == ok.end() ? ok.front() : *it;
  }
  for (auto& f : failed) f.record.replaced_by = map[static_cast<size_t>(f.record.sample)];
  std::set<TensorList*> done;
  for (const auto& o : outputs)
    if (done.insert(o.get()).second) Remap(*o, map, memory, stream);
}

}  // namespace sluice
