#include "kernels/detection/coco_label_masks.h"

#include <algorithm>

namespace sluice::kernels {

CocoRle UnionCocoRles(const std::vector<CocoRle>& rles) {
  if (rles.size() == 1) return rles[0];
  CocoRle out;
  out.height = rles[0].height;
  out.width = rles[0].width;
  const int64_t total = static_cast<int64_t>(out.height) * out.width;
  std::vector<uint8_t> on(static_cast<size_t>(total), 0);  // column-major, as the runs
  for (const CocoRle& r : rles) {
    int64_t pos = 0;
    bool set = false;
    for (uint32_t c : r.counts) {
      const int64_t end = std::min<int64_t>(total, pos + c);
      if (set) std::fill(on.begin() + pos, on.begin() + end, uint8_t{1});
      pos = end;
      set = !set;
    }
  }
  uint8_t cur = 0;
  uint32_t run = 0;
  for (uint8_t v : on) {
    if (v != cur) {
      out.counts.push_back(run);
      run = 0;
      cur = v;
    }
    ++run;
  }
  out.counts.push_back(run);
  return out;
}

namespace {

struct Run {
  uint32_t count;
  int32_t value;
};

// One DALI merge step: the runs `a` with label b's RLE, into `out`.
void MergeLabel(const std::vector<Run>& a, const std::vector<uint32_t>& b, int32_t label, std::vector<Run>& out) {
  out.clear();
  size_t ia = 1, ib = 1;
  uint32_t ca = a.empty() ? 0 : a[0].count, cb = b[0];
  int32_t va = a.empty() ? 0 : a[0].value, next_va = va;
  bool vb = false, next_vb = false;
  while (true) {
    const uint32_t c = std::min(ca, cb);
    bool advanced = c > 0;
    ca -= c;
    if (ca == 0 && ia < a.size()) {
      ca = a[ia].count;
      next_va = a[ia++].value;
      advanced = true;
    }
    cb -= c;
    if (cb == 0 && ib < b.size()) {
      cb = b[ib++];
      next_vb = !next_vb;
      advanced = true;
    }
    int32_t v = 0;
    if (va != 0 && vb) v = ca == 0 ? va : label;  // ca == 0 here: the last segment
    else if (va != 0) v = va;
    else if (vb) v = label;
    out.push_back({c, v});
    va = next_va;
    vb = next_vb;
    // DALI stops when the current runs are used up; `advanced` guards a b that ran out first
    // (counts not summing alike), where DALI would loop forever.
    if (ca == 0 || !advanced) break;
  }
}

}  // namespace

void ComposeCocoLabelMasks(const std::vector<LabelMask>& labels, int height, int width, int32_t* mask) {
  const int64_t h = height, total = h * width;
  std::fill(mask, mask + total, 0);
  std::vector<Run> runs, next;
  bool started = false;
  for (const LabelMask& l : labels) {
    if (l.rle == nullptr || l.rle->counts.empty()) continue;
    if (!started) {
      bool on = false;
      for (uint32_t c : l.rle->counts) {
        runs.push_back({c, on ? l.label : 0});
        on = !on;
      }
      started = true;
      continue;
    }
    MergeLabel(runs, l.rle->counts, l.label, next);
    runs.swap(next);
  }
  int64_t pos = 0;
  for (const Run& r : runs) {
    const int64_t end = std::min<int64_t>(total, pos + r.count);
    if (r.value != 0)
      for (int64_t idx = pos; idx < end; ++idx) mask[(idx % h) * width + idx / h] = r.value;
    pos = end;
  }
}

}  // namespace sluice::kernels
