#include "readers/numpy/numpy_reader.h"

#include <algorithm>
#include <cmath>

#include <sluice/error.h>

#include "operators/registry.h"
#include "readers/numpy/npy_array.h"
#include "readers/storage/file_source.h"
#include "readers/storage/storage.h"
#include "readers/storage/url.h"

namespace sluice {
namespace {

const char* const kRoiArgs[] = {"roi_start", "rel_roi_start", "roi_end", "rel_roi_end", "roi_shape", "rel_roi_shape"};

// The arrays are read with pread, never mapped: a ROI read then reads only the ROI's bytes. A
// remote path opens a RemoteSource (ranged GETs; storage.h).
std::unique_ptr<ByteSource> OpenNpy(const std::string& path) {
  return OpenByteSource(path, /*use_mmap=*/false, /*read_ahead=*/false);
}

// Checks that the file holds the whole array the header describes.
void CheckFileSize(const ByteSource& file, const NpyHeader& h) {
  if (file.size() - h.data_offset < h.num_bytes())
    throw Error("'" + file.name() + "' is truncated: the header describes " + std::to_string(h.num_bytes()) +
                " bytes of data, the file has " + std::to_string(std::max<int64_t>(0, file.size() - h.data_offset)));
}

std::string ShapeText(const std::vector<int64_t>& s) {
  std::string o = "(";
  for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
  return o + ")";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// NumpyLoader

NumpyLoader::NumpyLoader(const OpSpec& spec, bool headers_only)
    : ReaderOperator(spec), headers_only_(headers_only), dataset_(*this), filter_(Arg<std::string>("file_filter")) {
  InitEagerly();
}

NumpyLoader::~NumpyLoader() { StopLoader(); }

std::string NumpyLoader::DatasetName() const { return dataset_.Name(); }

int64_t NumpyLoader::InitDataset() {
  files_ = dataset_.ListPaths(filter_, options().random_shuffle);
  return static_cast<int64_t>(files_.size());
}

void NumpyLoader::AdjustSequencer(SequencerOptions& s) const { dataset_.AdjustSequencer(s); }

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
  // Remote arrays (whole reads) are fetched together first, in parallel; a ROI reader's header
  // pass reads only their first block.
  std::vector<int64_t> remote(n, -1);
  std::vector<FetchedFile> fetched;
  if (!headers_only_) {
    std::vector<std::string> remote_paths;
    for (size_t i = 0; i < n; ++i) {
      const std::string& path = files_[static_cast<size_t>(indices[i])];
      if (IsRemotePath(path)) {
        remote[i] = static_cast<int64_t>(remote_paths.size());
        remote_paths.push_back(path);
      }
    }
    if (!remote_paths.empty()) fetched = FetchFiles(remote_paths);
  }
  auto open = [&](size_t i, const std::string& path) -> std::unique_ptr<ByteSource> {
    if (remote[i] < 0) return OpenNpy(path);
    const FetchedFile& f = fetched[static_cast<size_t>(remote[i])];
    if (!f.error.empty()) throw Error(f.error);
    return std::make_unique<MemorySource>(f.data.data(), f.data.size(), path);
  };
  std::optional<DType> dtype;
  std::string dtype_file;
  for (size_t i = 0; i < n; ++i) {
    const std::string& path = files_[static_cast<size_t>(indices[i])];
    try {
      const std::unique_ptr<ByteSource> file = open(i, path);
      headers[i] = ReadNpyHeader(*file);
      CheckFileSize(*file, headers[i]);
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
    try {  // opened again: a batch's files are not all held open at once
      ReadNpyArray(*open(i, path), h, static_cast<char*>(out.raw_mutable_sample(si)), scratch_);
    } catch (const Error& e) {
      failed(i, path, e);
    }
  }
  out.set_layout("");
}

// ---------------------------------------------------------------------------------------------
// NumpyReader

NumpyReader::NumpyReader(const OpSpec& spec) : LoaderBackedReader(spec) {
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
    ReadNpyBox(*OpenNpy(it.path), it.header, it.anchor, it.out_shape, fill_, static_cast<char*>(out.raw_mutable_sample(i)),
               scratch_[static_cast<size_t>(thread)]);
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
