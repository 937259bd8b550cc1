// readers.coco's preprocessed annotations: a CocoDataset in one binary file, <dir>/coco_dataset.bin.
// Layout (little-endian, as the machine writes it): the magic "SLUICE-COCO-1\n", a uint8 ratio
// flag, then each array as a uint64 element count and its elements (strings: uint64 length +
// bytes; RLEs: int32 height, int32 width, then the counts as an array). Loading checks the magic,
// every length against the bytes left, and that the per-sample ranges are consistent, so a
// truncated or foreign file is an Error, never a crash. (DALI writes several .dat files of its own
// layout; the two are not interchangeable.)
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <iterator>

#include <sluice/error.h>

#include "readers/coco/coco_annotations.h"

namespace sluice {
namespace {

constexpr char kMagic[] = "SLUICE-COCO-1\n";
const char kFileName[] = "coco_dataset.bin";

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw Error("cannot write preprocessed annotations '" + path + "': " + std::strerror(errno));
  }
  void Bytes(const void* p, size_t n) { out_.write(static_cast<const char*>(p), static_cast<std::streamsize>(n)); }
  template <typename T> void Pod(T v) { Bytes(&v, sizeof v); }
  template <typename T> void Array(const std::vector<T>& v) {
    Pod<uint64_t>(v.size());
    Bytes(v.data(), v.size() * sizeof(T));
  }
  void Close() {
    out_.close();
    if (!out_) throw Error("cannot write preprocessed annotations '" + path_ + "'");
  }

 private:
  std::string path_;
  std::ofstream out_;
};

class Reader {
 public:
  Reader(std::string path, std::string data) : path_(std::move(path)), data_(std::move(data)) {}
  [[noreturn]] void Fail(const std::string& why) const {
    throw Error("preprocessed annotations '" + path_ + "': " + why);
  }
  void Bytes(void* p, size_t n) {
    if (n > data_.size() - pos_) Fail("truncated (needed " + std::to_string(n) + " more bytes at offset " + std::to_string(pos_) + ")");
    std::memcpy(p, data_.data() + pos_, n);
    pos_ += n;
  }
  template <typename T> T Pod() {
    T v;
    Bytes(&v, sizeof v);
    return v;
  }
  template <typename T> void Array(std::vector<T>& v) {
    const uint64_t n = Pod<uint64_t>();
    if (n > (data_.size() - pos_) / sizeof(T)) Fail("truncated (an array of " + std::to_string(n) + " elements)");
    v.resize(n);
    Bytes(v.data(), n * sizeof(T));
  }
  bool AtEnd() const { return pos_ == data_.size(); }

 private:
  std::string path_, data_;
  size_t pos_ = 0;
};

// begin has size() + 1 entries, starts at 0, never decreases and ends at `total`.
bool Ranges(const std::vector<int64_t>& begin, int64_t samples, int64_t total) {
  if (static_cast<int64_t>(begin.size()) != samples + 1 || begin.front() != 0 || begin.back() != total) return false;
  for (size_t i = 1; i < begin.size(); ++i)
    if (begin[i] < begin[i - 1]) return false;
  return true;
}

}  // namespace

void SaveCocoDataset(const CocoDataset& d, const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error("cannot create save_preprocessed_annotations_dir '" + dir + "': " + std::strerror(errno));
  Writer w(dir + "/" + kFileName);
  w.Bytes(kMagic, sizeof kMagic - 1);
  w.Pod<uint8_t>(d.ratio ? 1 : 0);
  w.Pod<uint64_t>(d.files.size());
  for (const std::string& f : d.files) {
    w.Pod<uint64_t>(f.size());
    w.Bytes(f.data(), f.size());
  }
  w.Array(d.image_ids);
  w.Array(d.heights);
  w.Array(d.widths);
  w.Array(d.obj_begin);
  w.Array(d.boxes);
  w.Array(d.labels);
  w.Array(d.poly_begin);
  w.Array(d.polygons);
  w.Array(d.vert_begin);
  w.Array(d.vertices);
  w.Array(d.rle_begin);
  w.Array(d.rle_objects);
  w.Pod<uint64_t>(d.rles.size());
  for (const kernels::CocoRle& r : d.rles) {
    w.Pod<int32_t>(r.height);
    w.Pod<int32_t>(r.width);
    w.Array(r.counts);
  }
  w.Close();
}

CocoDataset LoadCocoDataset(const std::string& dir) {
  const std::string path = dir + "/" + kFileName;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read preprocessed annotations '" + path + "': " + std::strerror(errno));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r(path, std::move(data));
  char magic[sizeof kMagic - 1];
  r.Bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0)
    r.Fail("not a Sluice preprocessed-annotations file (written by save_preprocessed_annotations)");
  CocoDataset d;
  d.ratio = r.Pod<uint8_t>() != 0;
  const uint64_t n = r.Pod<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t len = r.Pod<uint64_t>();
    std::string f(static_cast<size_t>(std::min<uint64_t>(len, 1 << 20)), '\0');
    if (len > f.size()) r.Fail("a file name longer than 1 MiB");
    r.Bytes(f.data(), f.size());
    d.files.push_back(std::move(f));
  }
  r.Array(d.image_ids);
  r.Array(d.heights);
  r.Array(d.widths);
  r.Array(d.obj_begin);
  r.Array(d.boxes);
  r.Array(d.labels);
  r.Array(d.poly_begin);
  r.Array(d.polygons);
  r.Array(d.vert_begin);
  r.Array(d.vertices);
  r.Array(d.rle_begin);
  r.Array(d.rle_objects);
  const uint64_t nr = r.Pod<uint64_t>();
  for (uint64_t i = 0; i < nr; ++i) {
    kernels::CocoRle rle;
    rle.height = r.Pod<int32_t>();
    rle.width = r.Pod<int32_t>();
    r.Array(rle.counts);
    d.rles.push_back(std::move(rle));
  }
  if (!r.AtEnd()) r.Fail("unexpected bytes after the data");
  const int64_t s = d.size();
  const auto sz = [](const auto& v) { return static_cast<int64_t>(v.size()); };
  if (sz(d.image_ids) != s || sz(d.heights) != s || sz(d.widths) != s || !Ranges(d.obj_begin, s, sz(d.labels)) ||
      sz(d.boxes) != 4 * sz(d.labels) || d.polygons.size() % 3 != 0 || !Ranges(d.poly_begin, s, sz(d.polygons) / 3) ||
      d.vertices.size() % 2 != 0 || !Ranges(d.vert_begin, s, sz(d.vertices) / 2) || !Ranges(d.rle_begin, s, sz(d.rles)) ||
      sz(d.rle_objects) != sz(d.rles))
    r.Fail("the arrays are inconsistent (a damaged file)");
  // Every polygon and RLE must refer to an object and vertices of its own sample.
  for (int64_t i = 0; i < s; ++i) {
    const int64_t objects = d.num_objects(i), verts = d.vert_begin[i + 1] - d.vert_begin[i];
    for (int64_t p = d.poly_begin[i]; p < d.poly_begin[i + 1]; ++p) {
      const int32_t* q = &d.polygons[static_cast<size_t>(3 * p)];
      if (q[0] < 0 || q[0] >= objects || q[1] < 0 || q[2] < q[1] || q[2] > verts) r.Fail("a polygon is out of range");
    }
    for (int64_t k = d.rle_begin[i]; k < d.rle_begin[i + 1]; ++k) {
      const kernels::CocoRle& rle = d.rles[static_cast<size_t>(k)];
      if (d.rle_objects[static_cast<size_t>(k)] < 0 || d.rle_objects[static_cast<size_t>(k)] >= objects ||
          rle.height != d.heights[static_cast<size_t>(i)] || rle.width != d.widths[static_cast<size_t>(i)])
        r.Fail("an RLE mask is out of range");
    }
  }
  return d;
}

}  // namespace sluice
