#include "readers/fits/fits_reader.h"

#include <algorithm>
#include <cstring>

#include <sluice/error.h>

#include "operators/registry.h"
#include "readers/fits/fits_image.h"
#include "readers/storage/storage.h"

namespace sluice {

int FitsNumOutputs(const OpSpec& spec) {
  auto it = spec.args.find("hdu_indices");
  if (it == spec.args.end()) return 1;
  if (auto* l = std::get_if<std::vector<int64_t>>(&it->second)) return std::max<int>(1, static_cast<int>(l->size()));
  return 1;
}

FitsReader::FitsReader(const OpSpec& spec)
    : ReaderOperator(spec), dataset_(*this), filter_(Arg<std::string>("file_filter")) {
  for (int64_t h : Arg<std::vector<int64_t>>("hdu_indices")) {
    if (h < 1 || h > (1 << 20)) ThrowArgError("hdu_indices", "HDU " + std::to_string(h) + " is not >= 1 (HDUs count from 1, the primary)");
    hdus_.push_back(static_cast<int>(h));
  }
  if (hdus_.empty()) ThrowArgError("hdu_indices", "must name at least one HDU");
  const auto types = Arg<std::vector<std::string>>("dtypes");
  if (!types.empty() && types.size() != hdus_.size())
    ThrowArgError("dtypes", "has " + std::to_string(types.size()) + " entries but hdu_indices has " + std::to_string(hdus_.size()));
  dtypes_.resize(hdus_.size());
  for (size_t i = 0; i < types.size(); ++i) {
    const auto t = ParseDType(types[i]);
    if (!t) ThrowArgError("dtypes", "entry " + std::to_string(i) + " ('" + types[i] + "') is not a type");
    dtypes_[i] = *t;
  }
  InitEagerly();
}

FitsReader::~FitsReader() { StopLoader(); }

std::string FitsReader::DatasetName() const { return dataset_.Name(); }

int64_t FitsReader::InitDataset() {
  files_ = dataset_.ListPaths(filter_, options().random_shuffle);
  return static_cast<int64_t>(files_.size());
}

void FitsReader::ReadBatch(const std::vector<int64_t>& indices, std::vector<TensorList>& outs,
                           const MemoryConfig& cfg) {
  const size_t n = indices.size(), no = hdus_.size();
  pixels_.resize(no);
  std::vector<std::vector<TensorShape>> shapes(no, std::vector<TensorShape>(n));
  std::vector<DType> types(no, DType::kUInt8);
  std::vector<int> ranks(no, -1);
  std::vector<SourceInfo> srcs(n);
  std::vector<char> bad(n, 0);
  for (size_t o = 0; o < no; ++o) pixels_[o].resize(n);
  for (size_t o = 0; o < no; ++o)
    if (dtypes_[o]) types[o] = *dtypes_[o];
  for (size_t i = 0; i < n; ++i) {
    const std::string& path = files_[static_cast<size_t>(indices[i])];
    srcs[i].path = path;
    try {
      const std::string bytes = ReadWholeFile(path);
      FitsMemFile file(bytes.data(), bytes.size(), path);
      std::vector<FitsMemFile::Image> imgs(no);
      for (size_t o = 0; o < no; ++o) {
        imgs[o] = file.ReadImage(hdus_[o], &pixels_[o][i]);
        const FitsMemFile::Image& img = imgs[o];
        const std::string at = "FITS file '" + path + "', HDU " + std::to_string(hdus_[o]) + ": ";
        if (dtypes_[o] && img.dtype != *dtypes_[o])
          throw Error(at + "the image is " + std::string(ToString(img.dtype)) + " but dtypes gives " +
                      std::string(ToString(*dtypes_[o])) + " for this output");
        if (ranks[o] >= 0 && (img.dtype != types[o] || img.shape.ndim() != ranks[o]))
          throw Error(at + "the image is " + std::string(ToString(img.dtype)) + " of rank " +
                      std::to_string(img.shape.ndim()) + " but the batch's earlier files gave " +
                      std::string(ToString(types[o])) + " of rank " + std::to_string(ranks[o]));
      }
      // The batch's type and rank per output are its first good file's.
      for (size_t o = 0; o < no; ++o) {
        shapes[o][i] = imgs[o].shape;
        types[o] = imgs[o].dtype;
        ranks[o] = imgs[o].shape.ndim();
      }
    } catch (const Error& e) {
      bad[i] = 1;
      SampleReadFailed(static_cast<int>(i), srcs[i], e);  // throws with on_error="raise"
    }
  }
  for (size_t o = 0; o < no; ++o) {
    for (size_t i = 0; i < n; ++i)
      if (bad[i]) {
        shapes[o][i] = TensorShape(std::vector<int64_t>(static_cast<size_t>(std::max(ranks[o], 1)), 0));
        pixels_[o][i].clear();
      }
    TensorList& out = outs[o];
    out.Resize(shapes[o], types[o], cfg, true);
    for (size_t i = 0; i < n; ++i) {
      out.source(static_cast<int>(i)) = srcs[i];
      if (!pixels_[o][i].empty())
        std::memcpy(out.raw_mutable_sample(static_cast<int>(i)), pixels_[o][i].data(), pixels_[o][i].size());
    }
    out.set_layout("");
  }
}

SLUICE_REGISTER_OPERATORS(RegisterFitsReader) {
  OpSchema s("experimental.readers.fits");
  s.Doc("Reads image HDUs of FITS files with CFITSIO: one output per entry of hdu_indices (HDUs count from 1, the "
        "primary), each the image in its type (BITPIX with BZERO/BSCALE: uint8, int8, int16, uint16, int32, int64, "
        "float32, float64) and shape (the axes reversed: C order, as astropy's data.shape). Tile-compressed images "
        "are decompressed. The dataset is file_root (files matching file_filter, in subfolders too), a file_list or "
        "files.")
      .Output("data", "the image of each HDU in hdu_indices")
      .NumOutputsFn(FitsNumOutputs)
      .Arg("file_root", ArgType::kString, std::string(),
           "Folder walked for files matching file_filter; with file_list or files, the folder paths are relative to.")
      .Arg("file_filter", ArgType::kString, std::string("*.fits"), "Glob pattern of the file names read from file_root.")
      .Arg("file_list", ArgType::kString, std::string(),
           "Text file with one path per line, relative to file_root if given, else to the list's folder.")
      .Arg("files", ArgType::kStringList, std::vector<std::string>{}, "Paths of the files to read.")
      .Arg("hdu_indices", ArgType::kIntList, std::vector<int64_t>{2},
           "The HDUs to read, one output each (default: the first extension, HDU 2).")
      .Arg("dtypes", ArgType::kStringList, std::vector<std::string>{},
           "The type of each output; an image of another type is an error. Default: each image's own type.")
      .Arg("shuffle_after_epoch", ArgType::kBool, false,
           "Reshuffle the whole list every epoch, identically on every shard (implies stick_to_shard).")
      .Exclusive({"file_list", "files"});
  AddCommonReaderArgs(s);
  s.Factory("cpu", [](const OpSpec& spec) -> std::unique_ptr<Operator> { return std::make_unique<FitsReader>(spec); });
  r.Register(std::move(s));
}

}  // namespace sluice
