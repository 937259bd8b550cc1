#include "readers/numpy_reader.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sluice/error.h>

#include "core/random.h"
#include "operators/registry.h"
#include "readers/file_list.h"
#include "readers/shuffle.h"

namespace sluice {
namespace {

const char* const kRoiArgs[] = {"roi_start", "rel_roi_start", "roi_end", "rel_roi_end", "roi_shape", "rel_roi_shape"};

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd_ < 0) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void PreadAll(int fd, char* dst, size_t n, int64_t off, const std::string& path) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, dst + got, n - got, static_cast<off_t>(off + static_cast<int64_t>(got)));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read '" + path + "': " + std::strerror(errno));
    }
    if (r == 0)
      throw Error("'" + path + "' is truncated: the array needs " + std::to_string(off + static_cast<int64_t>(n)) +
                  " bytes, the file ends at " + std::to_string(off + static_cast<int64_t>(got)));
    got += static_cast<size_t>(r);
  }
}

// Checks that the file holds the whole array the header describes.
void CheckFileSize(int fd, const NpyHeader& h, const std::string& path) {
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) throw Error("cannot stat '" + path + "': " + std::strerror(errno));
  if (static_cast<int64_t>(size) - h.data_offset < h.num_bytes())
    throw Error("'" + path + "' is truncated: the header describes " + std::to_string(h.num_bytes()) +
                " bytes of data, the file has " + std::to_string(std::max<int64_t>(0, size - h.data_offset)));
}

uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - exp;
    uint32_t h = mant >> shift;
    if ((mant >> (shift - 1)) & 1u) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  if (mant & 0x1000u) ++h;
  return static_cast<uint16_t>(h);
}

template <typename T> void Put(char* p, double v) {
  const T t = static_cast<T>(v);
  std::memcpy(p, &t, sizeof(T));
}

void FillValue(DType t, double v, char* out) {
  switch (t) {
    case DType::kUInt8: Put<uint8_t>(out, v); break;
    case DType::kInt8: Put<int8_t>(out, v); break;
    case DType::kUInt16: Put<uint16_t>(out, v); break;
    case DType::kInt16: Put<int16_t>(out, v); break;
    case DType::kInt32: Put<int32_t>(out, v); break;
    case DType::kInt64: Put<int64_t>(out, v); break;
    case DType::kFloat32: Put<float>(out, v); break;
    case DType::kFloat64: Put<double>(out, v); break;
    case DType::kBool: Put<uint8_t>(out, v != 0 ? 1 : 0); break;
    case DType::kFloat16: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(out, &h, 2);
      break;
    }
    default: std::memset(out, 0, SizeOf(t));
  }
}

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string o = "(";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
  return o + ")";
}

std::vector<int> ReversedPerm(size_t n) {
  std::vector<int> p(n);
  for (size_t j = 0; j < n; ++j) p[j] = static_cast<int>(n - 1 - j);
  return p;
}

}  // namespace

std::vector<std::string> ListNpyFiles(const std::string& root, const std::string& filter) {
  namespace fs = std::filesystem;
  std::vector<std::string> rel;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::follow_directory_symlink, ec);
  if (ec) throw Error("cannot read folder '" + root + "': " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw Error("cannot read folder '" + root + "': " + ec.message());
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    const std::string name = it->path().filename().string();
    if (::fnmatch(filter.c_str(), name.c_str(), 0) != 0) continue;
    rel.push_back(fs::relative(it->path(), root, ec2).generic_string());
  }
  std::sort(rel.begin(), rel.end());
  if (rel.empty()) throw Error("no file in '" + root + "' matches file_filter '" + filter + "'");
  std::vector<std::string> out;
  out.reserve(rel.size());
  for (auto& r : rel) out.push_back(JoinPath(root, r));
  return out;
}

void CopyBoxPermuted(const char* src, const std::vector<int64_t>& src_shape, const std::vector<int>& perm, char* dst,
                     const std::vector<int64_t>& dst_shape, const std::vector<int64_t>& dst_offset, size_t elem) {
  const size_t n = src_shape.size();
  int64_t total = 1;
  for (int64_t d : src_shape) total *= d;
  if (total == 0) return;
  // dst strides (elements), then the stride in dst of each source axis.
  std::vector<int64_t> dst_stride(n, 1), s_in_dst(n);
  for (size_t k = n; k-- > 1;) dst_stride[k - 1] = dst_stride[k] * dst_shape[k];
  int64_t base = 0;
  for (size_t k = 0; k < n; ++k) base += dst_offset[k] * dst_stride[k];
  for (size_t j = 0; j < n; ++j) s_in_dst[j] = dst_stride[static_cast<size_t>(perm[j])];
  std::vector<int64_t> idx(n, 0);
  int64_t d = base;
  const int64_t inner = n ? src_shape[n - 1] : 1;
  const int64_t inner_stride = n ? s_in_dst[n - 1] : 1;
  for (int64_t e = 0; e < total; e += inner) {
    if (inner_stride == 1) {
      std::memcpy(dst + static_cast<size_t>(d) * elem, src + static_cast<size_t>(e) * elem, static_cast<size_t>(inner) * elem);
    } else {
      for (int64_t k = 0; k < inner; ++k)
        std::memcpy(dst + static_cast<size_t>(d + k * inner_stride) * elem, src + static_cast<size_t>(e + k) * elem, elem);
    }
    // Advance the outer source index.
    for (size_t j = n - 1; j-- > 0;) {
      d += s_in_dst[j];
      if (++idx[j] < src_shape[j]) break;
      d -= s_in_dst[j] * src_shape[j];
      idx[j] = 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// NumpyLoader

NumpyLoader::NumpyLoader(const OpSpec& spec, bool headers_only) : ReaderOperator(spec), headers_only_(headers_only) {
  file_root_ = Arg<std::string>("file_root");
  file_list_ = Arg<std::string>("file_list");
  filter_ = Arg<std::string>("file_filter");
  file_args_ = Arg<std::vector<std::string>>("files");
  shuffle_after_epoch_ = Arg<bool>("shuffle_after_epoch");
  const bool has_files = HasArg("files");
  if (HasArg("file_list") && has_files) ThrowArgError("files", "cannot be given together with file_list");
  if (file_root_.empty() && file_list_.empty() && !has_files)
    ThrowArgError("file_root", "one of file_root, file_list or files is required");
  if (has_files && file_args_.empty()) ThrowArgError("files", "is empty");
  if (shuffle_after_epoch_ && options().random_shuffle)
    ThrowArgError("shuffle_after_epoch", "cannot be combined with random_shuffle");
  InitEagerly();
}

NumpyLoader::~NumpyLoader() { StopLoader(); }

std::string NumpyLoader::DatasetName() const {
  if (!file_list_.empty()) return "file_list '" + file_list_ + "'";
  if (!file_args_.empty()) return "files [" + std::to_string(file_args_.size()) + " paths]";
  return "file_root '" + file_root_ + "'";
}

int64_t NumpyLoader::InitDataset() {
  files_.clear();
  if (!file_list_.empty()) {
    std::ifstream in(file_list_);
    if (!in) throw Error("cannot read file_list '" + file_list_ + "'");
    const std::string base =
        !file_root_.empty() ? file_root_ : std::filesystem::path(file_list_).parent_path().string();
    std::string line;
    while (std::getline(in, line)) {
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
      size_t b = 0;
      while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
      if (b < line.size()) files_.push_back(JoinPath(base, line.substr(b)));
    }
    if (files_.empty()) throw Error("file_list '" + file_list_ + "' lists no file");
  } else if (!file_args_.empty()) {
    for (const auto& f : file_args_) files_.push_back(JoinPath(file_root_, f));
  } else {
    files_ = ListNpyFiles(file_root_, filter_);
  }
  if (options().random_shuffle) {  // as readers.file: one fixed shuffle of the list before sharding
    std::vector<int64_t> perm(files_.size());
    for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
    RandomGenerator rng(kListShuffleSeed);
    Permute(&perm, rng);
    std::vector<std::string> shuffled;
    shuffled.reserve(files_.size());
    for (int64_t i : perm) shuffled.push_back(std::move(files_[static_cast<size_t>(i)]));
    files_.swap(shuffled);
  }
  return static_cast<int64_t>(files_.size());
}

void NumpyLoader::AdjustSequencer(SequencerOptions& s) const {
  if (shuffle_after_epoch_) {
    s.shuffle_after_epoch = true;
    s.stick_to_shard = true;
  }
}

void NumpyLoader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                            const MemoryConfig& cfg) {
  const size_t n = indices.size();
  std::vector<NpyHeader> headers(n);
  std::vector<char> bad(n, 0);
  std::vector<TensorShape> shapes(n);
  auto failed = [&](size_t i, const std::string& path, const Error& e) {
    SourceInfo src;
    src.path = path;
    SampleReadFailed(static_cast<int>(i), src, e);  // throws with on_error="raise"
    bad[i] = 1;
  };
  std::optional<DType> dtype;
  std::string dtype_file;
  for (size_t i = 0; i < n; ++i) {
    const std::string& path = files_[static_cast<size_t>(indices[i])];
    try {
      Fd fd(path);
      headers[i] = ReadNpyHeader(fd.get(), path);
      CheckFileSize(fd.get(), headers[i], path);
      if (dtype && *dtype != headers[i].dtype)
        throw Error("'" + path + "' holds " + std::string(ToString(headers[i].dtype)) + " but '" + dtype_file +
                    "' in the same batch holds " + std::string(ToString(*dtype)) +
                    " (all arrays of a batch must have the same dtype)");
      if (!dtype) {
        dtype = headers[i].dtype;
        dtype_file = path;
      }
    } catch (const Error& e) {
      failed(i, path, e);
    }
    if (headers_only_) {
      shapes[i] = TensorShape{static_cast<int64_t>(4 + headers[i].shape.size())};
    } else {
      shapes[i] = bad[i] ? TensorShape(std::vector<int64_t>(headers[i].shape.size(), 0)) : TensorShape(headers[i].shape);
    }
  }
  TensorList& out = outs[0];
  if (headers_only_) {
    out.Resize(shapes, DType::kInt64, cfg, false);
  } else {
    // Rows that failed (on_error="replace") keep an empty array of their rank.
    for (size_t i = 0; i < n; ++i)
      if (bad[i]) shapes[i] = TensorShape(std::vector<int64_t>(headers[i].shape.size(), 0));
    out.Resize(shapes, dtype.value_or(DType::kUInt8), cfg, false);
  }
  for (size_t i = 0; i < n; ++i) {
    const int si = static_cast<int>(i);
    const std::string& path = files_[static_cast<size_t>(indices[i])];
    SourceInfo& src = out.source(si);
    src.path = path;
    src.member.clear();
    src.offset = -1;
    const NpyHeader& h = headers[i];
    if (headers_only_) {
      int64_t* d = out.mutable_sample<int64_t>(si);
      d[0] = static_cast<int64_t>(h.dtype);
      d[1] = h.fortran_order ? 1 : 0;
      d[2] = h.data_offset;
      d[3] = static_cast<int64_t>(h.shape.size());
      for (size_t k = 0; k < h.shape.size(); ++k) d[4 + k] = h.shape[k];
      if (bad[i]) d[3] = -1;
      continue;
    }
    if (bad[i]) continue;
    try {
      Fd fd(path);
      const size_t bytes = static_cast<size_t>(h.num_bytes());
      char* dst = static_cast<char*>(out.raw_mutable_sample(si));
      if (!h.fortran_order || h.shape.size() < 2) {
        PreadAll(fd.get(), dst, bytes, h.data_offset, path);
      } else {
        scratch_.resize(bytes);
        PreadAll(fd.get(), scratch_.data(), bytes, h.data_offset, path);
        std::vector<int64_t> rev(h.shape.rbegin(), h.shape.rend());
        CopyBoxPermuted(scratch_.data(), rev, ReversedPerm(rev.size()), dst, h.shape,
                        std::vector<int64_t>(h.shape.size(), 0), SizeOf(h.dtype));
      }
    } catch (const Error& e) {
      failed(i, path, e);
    }
  }
  out.set_layout("");
}

// ---------------------------------------------------------------------------------------------
// NumpyReader

NumpyReader::NumpyReader(const OpSpec& spec) : Operator(spec) {
  for (const char* a : kRoiArgs) roi_ = roi_ || HasArg(a);
  policy_ = Arg<std::string>("out_of_bounds_policy");
  if (policy_ != "error" && policy_ != "pad" && policy_ != "trim_to_shape")
    ThrowArgError("out_of_bounds_policy", "must be \"error\", \"pad\" or \"trim_to_shape\", got \"" + policy_ + "\"");
  fill_ = Arg<double>("fill_value");
  roi_axes_ = Arg<std::vector<int>>("roi_axes");
  auto exclusive = [&](const char* a, const char* b) {
    if (HasArg(a) && HasArg(b)) ThrowArgError(b, std::string("cannot be combined with ") + a);
  };
  exclusive("roi_start", "rel_roi_start");
  exclusive("roi_end", "rel_roi_end");
  exclusive("roi_end", "roi_shape");
  exclusive("roi_end", "rel_roi_shape");
  exclusive("rel_roi_end", "roi_shape");
  exclusive("rel_roi_end", "rel_roi_shape");
  exclusive("roi_shape", "rel_roi_shape");
  loader_ = std::make_unique<NumpyLoader>(spec, roi_);
}

NumpyReader::~NumpyReader() { loader_.reset(); }

std::vector<OutputDesc> NumpyReader::Setup(Workspace& ws) {
  loader_->Setup(ws);
  if (!roi_) return {};
  const TensorList& desc = ws.Output(0);
  const int n = desc.num_samples();
  std::vector<std::vector<double>> args[6];
  for (int k = 0; k < 6; ++k) args[k] = PerSampleListArg<double>(ws, kRoiArgs[k]);
  items_.assign(static_cast<size_t>(n), Item{});
  OutputDesc d;
  std::optional<DType> dtype;
  for (int i = 0; i < n; ++i) {
    Item& it = items_[static_cast<size_t>(i)];
    it.path = desc.source(i).path;
    const int64_t* v = static_cast<const int64_t*>(desc.raw_sample(i));
    if (v[3] < 0) {  // a row the loader could not read (on_error="replace"): an empty array
      d.shapes.push_back(TensorShape{0});
      continue;
    }
    NpyHeader& h = it.header;
    h.dtype = static_cast<DType>(v[0]);
    h.fortran_order = v[1] != 0;
    h.data_offset = v[2];
    h.shape.assign(v + 4, v + 4 + v[3]);
    if (dtype && *dtype != h.dtype)
      throw Error("'" + it.path + "' holds " + std::string(ToString(h.dtype)) + " but another array of the batch holds " +
                  std::string(ToString(*dtype)) + " (all arrays of a batch must have the same dtype)");
    dtype = h.dtype;
    const int ndim = static_cast<int>(h.shape.size());
    std::vector<int> axes = roi_axes_;
    if (axes.empty())
      for (int a = 0; a < ndim; ++a) axes.push_back(a);
    for (int& a : axes) {
      if (a < 0) a += ndim;
      if (a < 0 || a >= ndim)
        ThrowArgError("roi_axes", "axis " + std::to_string(a) + " is out of range for '" + it.path + "' with " +
                                      std::to_string(ndim) + " dimensions");
    }
    it.anchor.assign(static_cast<size_t>(ndim), 0);
    it.out_shape = h.shape;
    for (int k = 0; k < 6; ++k) {
      const auto& a = args[k][static_cast<size_t>(i)];
      if (HasArg(kRoiArgs[k]) && a.size() != axes.size())
        ThrowPerSample(kRoiArgs[k], i, "has " + std::to_string(a.size()) + " values but the ROI has " +
                                            std::to_string(axes.size()) + " axes (file '" + it.path + "')");
    }
    for (size_t ai = 0; ai < axes.size(); ++ai) {
      const size_t dim = static_cast<size_t>(axes[ai]);
      const double extent = static_cast<double>(h.shape[dim]);
      double start = 0, end = extent;
      if (HasArg("roi_start")) start = args[0][static_cast<size_t>(i)][ai];
      if (HasArg("rel_roi_start")) start = args[1][static_cast<size_t>(i)][ai] * extent;
      if (HasArg("roi_end")) end = args[2][static_cast<size_t>(i)][ai];
      else if (HasArg("rel_roi_end")) end = args[3][static_cast<size_t>(i)][ai] * extent;
      else if (HasArg("roi_shape")) end = start + args[4][static_cast<size_t>(i)][ai];
      else if (HasArg("rel_roi_shape")) end = start + args[5][static_cast<size_t>(i)][ai] * extent;
      if (!std::isfinite(start) || !std::isfinite(end) || std::abs(start) > 9e18 || std::abs(end) > 9e18)
        ThrowPerSample("roi_start", i, "the ROI is not finite or out of range (file '" + it.path + "')");
      int64_t lo = std::llround(start), hi = std::llround(end);
      if (hi < lo)
        ThrowPerSample("roi_end", i, "the ROI's end (" + std::to_string(hi) + ") is before its start (" +
                                         std::to_string(lo) + ") along axis " + std::to_string(dim) + " (file '" +
                                         it.path + "')");
      const int64_t ext = h.shape[dim];
      if (policy_ == "trim_to_shape") {
        lo = std::clamp<int64_t>(lo, 0, ext);
        hi = std::clamp<int64_t>(hi, lo, ext);
      } else if (policy_ == "error" && (lo < 0 || hi > ext)) {
        throw Error("the ROI [" + std::to_string(lo) + ", " + std::to_string(hi) + ") along axis " +
                    std::to_string(dim) + " is outside '" + it.path + "' of shape " + ShapeText(h.shape) +
                    " (out_of_bounds_policy=\"error\"; use \"pad\" or \"trim_to_shape\")");
      }
      it.anchor[dim] = lo;
      it.out_shape[dim] = hi - lo;
    }
    d.shapes.push_back(TensorShape(it.out_shape));
  }
  d.dtype = dtype.value_or(DType::kUInt8);
  d.layout = "";
  d.contiguous = false;
  return {d};
}

void NumpyReader::ReadRoi(const Item& it, char* dst, std::vector<char>& scratch) const {
  const NpyHeader& h = it.header;
  const size_t n = h.shape.size();
  const size_t elem = SizeOf(h.dtype);
  int64_t out_total = 1;
  for (int64_t v : it.out_shape) out_total *= v;
  if (out_total == 0) return;
  // The intersection of the ROI with the array (C-order coordinates).
  std::vector<int64_t> lo(n), len(n);
  bool inside = true, empty = false;
  for (size_t k = 0; k < n; ++k) {
    const int64_t a = std::max<int64_t>(it.anchor[k], 0);
    const int64_t b = std::min<int64_t>(it.anchor[k] + it.out_shape[k], h.shape[k]);
    lo[k] = a;
    len[k] = std::max<int64_t>(b - a, 0);
    if (len[k] == 0) empty = true;
    if (a != it.anchor[k] || len[k] != it.out_shape[k]) inside = false;
  }
  if (!inside) {  // pad: fill first
    std::vector<char> v(elem);
    FillValue(h.dtype, fill_, v.data());
    for (int64_t e = 0; e < out_total; ++e) std::memcpy(dst + static_cast<size_t>(e) * elem, v.data(), elem);
  }
  if (empty) return;
  // File-order geometry: C order as is, Fortran order is C order of the reversed axes.
  std::vector<int64_t> fshape = h.shape, flo = lo, flen = len;
  if (h.fortran_order) {
    std::reverse(fshape.begin(), fshape.end());
    std::reverse(flo.begin(), flo.end());
    std::reverse(flen.begin(), flen.end());
  }
  const bool direct = inside && (!h.fortran_order || n < 2);
  int64_t box = 1;
  for (int64_t v : flen) box *= v;
  char* buf = dst;
  if (!direct) {
    scratch.resize(static_cast<size_t>(box) * elem);
    buf = scratch.data();
  }
  Fd fd(it.path);
  // Contiguous runs: the innermost axis, merged outward while the inner axes are covered whole.
  int64_t run = 1;
  size_t outer = n;  // axes [0, outer) are iterated
  while (outer > 0) {
    const size_t k = outer - 1;
    run *= flen[k];
    --outer;
    if (flo[k] != 0 || flen[k] != fshape[k]) break;
  }
  std::vector<int64_t> fstride(n, 1);
  for (size_t k = n; k-- > 1;) fstride[k - 1] = fstride[k] * fshape[k];
  std::vector<int64_t> idx(outer, 0);
  const int64_t runs = run > 0 ? box / run : 0;
  for (int64_t r = 0; r < runs; ++r) {
    int64_t off = 0;
    for (size_t k = 0; k < n; ++k) off += (flo[k] + (k < outer ? idx[k] : 0)) * fstride[k];
    PreadAll(fd.get(), buf + static_cast<size_t>(r * run) * elem, static_cast<size_t>(run) * elem,
             h.data_offset + off * static_cast<int64_t>(elem), it.path);
    for (size_t k = outer; k-- > 0;) {
      if (++idx[k] < flen[k]) break;
      idx[k] = 0;
    }
  }
  if (direct) return;
  std::vector<int64_t> dst_off(n);
  for (size_t k = 0; k < n; ++k) dst_off[k] = lo[k] - it.anchor[k];
  std::vector<int> perm(n);
  for (size_t j = 0; j < n; ++j) perm[j] = static_cast<int>(j);
  if (h.fortran_order) perm = ReversedPerm(n);
  CopyBoxPermuted(buf, flen, perm, dst, it.out_shape, dst_off, elem);
}

void NumpyReader::Run(Workspace& ws) {
  if (!roi_) return;
  scratch_.resize(static_cast<size_t>(ws.pool().num_threads()) + 1);
  ForEachSample(ws, [&](int i, int thread) {
    const Item& it = items_[static_cast<size_t>(i)];
    TensorList& out = ws.Output(0);
    out.source(i).path = it.path;
    out.source(i).member.clear();
    out.source(i).offset = -1;
    if (it.out_shape.empty() && it.header.shape.empty() && out.shape(i).ndim() == 1) return;  // failed row
    ReadRoi(it, static_cast<char*>(out.raw_mutable_sample(i)), scratch_[static_cast<size_t>(thread)]);
  });
}

SLUICE_REGISTER_OPERATORS(RegisterNumpyReader) {
  OpSchema s("readers.numpy");
  s.Doc("Reads NumPy .npy arrays (format versions 1.0, 2.0, 3.0; C or Fortran order, transposed to C order) from "
        "file_root (files matching file_filter, in subfolders too), a file_list or files, with an optional region of "
        "interest of which only the bytes are read from disk. Output: the array with its dtype and shape.")
      .Output("data", "the array (its dtype and shape, C order)")
      .Arg("file_root", ArgType::kString, std::string(),
           "Folder walked for files matching file_filter; with file_list or files, the folder paths are relative to.")
      .Arg("file_filter", ArgType::kString, std::string("*.npy"), "Glob pattern of the file names read from file_root.")
      .Arg("file_list", ArgType::kString, std::string(),
           "Text file with one path per line, relative to file_root if given, else to the list's folder.")
      .Arg("files", ArgType::kStringList, std::vector<std::string>{}, "Paths of the files to read.")
      .Arg("roi_start", ArgType::kFloatList, std::vector<double>{}, "ROI start (absolute coordinates), per ROI axis.", true)
      .Arg("rel_roi_start", ArgType::kFloatList, std::vector<double>{}, "ROI start (fractions of the extent).", true)
      .Arg("roi_end", ArgType::kFloatList, std::vector<double>{}, "ROI end (absolute, exclusive).", true)
      .Arg("rel_roi_end", ArgType::kFloatList, std::vector<double>{}, "ROI end (fractions of the extent).", true)
      .Arg("roi_shape", ArgType::kFloatList, std::vector<double>{}, "ROI shape (absolute).", true)
      .Arg("rel_roi_shape", ArgType::kFloatList, std::vector<double>{}, "ROI shape (fractions of the extent).", true)
      .Arg("roi_axes", ArgType::kIntList, std::vector<int64_t>{},
           "The axes the ROI arguments refer to (default: all, in order).")
      .Arg("out_of_bounds_policy", ArgType::kString, std::string("error"),
           "A ROI outside the array: \"error\", \"pad\" (with fill_value) or \"trim_to_shape\".")
      .Arg("fill_value", ArgType::kFloat, 0.0, "The value of padded elements (out_of_bounds_policy=\"pad\").")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole list every epoch, identically on every shard (implies stick_to_shard).")
      .Arg("cache_header_information", ArgType::kBool, false, "Accepted for compatibility (headers are re-read).")
      .Arg("use_o_direct", ArgType::kBool, false, "Accepted for compatibility; files are read with buffered I/O.")
      .Arg("register_buffers", ArgType::kBool, true, "Accepted for compatibility (GPU reader only in DALI).")
      .Exclusive({"file_list", "files"});
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<NumpyReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
