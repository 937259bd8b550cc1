// io.file.read: reads whole files named by its input (DALI's fn.io.file.read). Each input sample is
// a path as a 1-D uint8 tensor (e.g. np.frombuffer(path.encode(), np.uint8) from external_source);
// the output sample is the file's bytes, uint8 1-D (encoded images for a decoder). Lives in the
// readers layer to reuse file_source.h's WholeFile (operators may not include readers).
#include <string>
#include <vector>

#include "operators/operator.h"
#include "operators/registry.h"
#include "readers/storage/file_source.h"

namespace sluice {
namespace {

class IoFileRead : public Operator {
 public:
  explicit IoFileRead(const OpSpec& spec) : Operator(spec), use_mmap_(!Arg<bool>("dont_use_mmap")) {}

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    if (in.dtype() != DType::kUInt8 && in.dtype() != DType::kInt8)
      throw Error("input 'filepaths' must be uint8 (the path's bytes), got " + std::string(ToString(in.dtype())));
    const int n = in.num_samples();
    paths_.assign(static_cast<size_t>(n), std::string());
    files_.clear();
    files_.resize(static_cast<size_t>(n));
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (in.shape(i).ndim() > 1)
        throw Error("input 'filepaths' sample " + std::to_string(i) + " must be a 1-D string of bytes, got " +
                    std::to_string(in.shape(i).ndim()) + " dimensions");
      auto& p = paths_[static_cast<size_t>(i)];
      p.assign(static_cast<const char*>(in.raw_sample(i)), static_cast<size_t>(in.shape(i).num_elements()));
      while (!p.empty() && p.back() == '\0') p.pop_back();  // NUL-terminated buffers
      if (p.empty()) throw Error("input 'filepaths' sample " + std::to_string(i) + " is an empty path");
      files_[static_cast<size_t>(i)] = WholeFile(p, /*read_ahead=*/true);  // throws naming the path
      shapes[static_cast<size_t>(i)] = TensorShape{files_[static_cast<size_t>(i)].size()};
    }
    return {{shapes, DType::kUInt8, "", false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    TensorList& out = ws.Output(0);
    files_[static_cast<size_t>(i)].ReadAll(out.raw_mutable_sample(i), use_mmap_);
    out.source(i).path = paths_[static_cast<size_t>(i)];
  }

 private:
  bool use_mmap_;
  std::vector<std::string> paths_;  // outlive files_ (WholeFile keeps a pointer to its path)
  std::vector<WholeFile> files_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterIoFileRead) {
  r.Register(OpSchema("io.file.read")
                 .Doc("Reads the whole file named by each input sample (DALI's io.file.read). The input is the "
                      "path's bytes as a 1-D uint8 tensor per sample (e.g. np.frombuffer(path.encode(), np.uint8) "
                      "from external_source); the output is the file's bytes, uint8 1-D. A file that cannot be "
                      "opened or read is an error naming its path.")
                 .Input("filepaths", "File paths, one 1-D uint8 string per sample.", {DType::kUInt8, DType::kInt8})
                 .Output("data", "The files' contents.")
                 .Arg("dont_use_mmap", ArgType::kBool, false, "Read with read() instead of mapping the file.")
                 .Arg("use_o_direct", ArgType::kBool, false,
                      "Accepted for compatibility (DALI: bypass the page cache); files are read with buffered I/O.")
                 .Factory("cpu", MakeFactory<IoFileRead>()));
}

}  // namespace sluice
