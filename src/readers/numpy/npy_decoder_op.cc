// decoders.numpy: the array of each serialized .npy file (DALI's fn.decoders.numpy): the input
// sample is the file's bytes (uint8, 1-D), the output its array, C order (a Fortran-order array is
// transposed, as readers.numpy does), with the file's shape. The samples of a batch must have one
// number of dimensions and, without `dtype`, one type; `dtype` converts every sample to it by cast's
// rules. Lives in the readers layer to share readers.numpy's header parser and array copy (operators
// may not include readers); header and array copy are fuzzed (fuzz/fuzz_npy_header.cc).
#include <optional>
#include <string>
#include <vector>

#include "kernels/tensor/cast.h"
#include "operators/operator.h"
#include "operators/registry.h"
#include "readers/numpy/npy_array.h"
#include "readers/numpy/npy_header.h"

namespace sluice {
namespace {

class NumpyDecoder : public Operator {
 public:
  explicit NumpyDecoder(const OpSpec& spec) : Operator(spec) {
    if (HasArg("dtype")) dtype_ = Arg<DType>("dtype");
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    const int n = in.num_samples();
    headers_.assign(static_cast<size_t>(n), {});
    std::vector<TensorShape> shapes(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      if (in.shape(i).ndim() != 1)
        throw Error("input 'data' sample " + std::to_string(i) + " must be the .npy file's bytes (1-D), got shape " +
                    in.shape(i).ToString());
      const std::string name = SampleName(in, i);
      NpyHeader& h = headers_[static_cast<size_t>(i)];
      h = ParseNpyHeader(Bytes(in, i), name);
      if (h.data_offset + h.num_bytes() > in.shape(i).num_elements())
        throw Error(name + ": truncated: the header declares " + std::to_string(h.num_bytes()) + " bytes of data, the file has " +
                    std::to_string(in.shape(i).num_elements() - h.data_offset));
      const NpyHeader& first = headers_[0];
      if (h.shape.size() != first.shape.size())
        throw Error(name + " has " + std::to_string(h.shape.size()) + " dimensions, sample 0 has " +
                    std::to_string(first.shape.size()) + ": the samples of a batch must have one number of dimensions");
      if (!dtype_ && h.dtype != first.dtype)
        throw Error(name + " holds " + std::string(ToString(h.dtype)) + ", sample 0 " + std::string(ToString(first.dtype)) +
                    ": the samples of a batch must have one type (or give `dtype` to convert them)");
      shapes[static_cast<size_t>(i)] = TensorShape(h.shape);
    }
    const DType out = dtype_ ? *dtype_ : (n ? headers_[0].dtype : DType::kUInt8);
    return {{shapes, out, "", false}};
  }

  void RunSample(Workspace& ws, int i, int) override {
    const TensorList& in = ws.Input(0);
    TensorList& out = ws.Output(0);
    const NpyHeader& h = headers_[static_cast<size_t>(i)];
    const std::string_view bytes = Bytes(in, i);
    const MemorySource source(bytes.data(), bytes.size(), SampleName(in, i));
    thread_local std::vector<char> scratch, converted;
    if (h.dtype == out.dtype()) {
      ReadNpyArray(source, h, static_cast<char*>(out.raw_mutable_sample(i)), scratch);
    } else {
      converted.resize(static_cast<size_t>(h.num_bytes()));
      ReadNpyArray(source, h, converted.data(), scratch);
      kernels::Cast(converted.data(), h.dtype, out.raw_mutable_sample(i), out.dtype(),
                    static_cast<size_t>(h.num_elements()));
    }
    out.source(i) = in.source(i);
  }

 private:
  static std::string_view Bytes(const TensorList& in, int i) {
    return {static_cast<const char*>(in.raw_sample(i)), static_cast<size_t>(in.shape(i).num_elements())};
  }
  static std::string SampleName(const TensorList& in, int i) {
    const std::string where = in.source(i).ToString();
    return "sample " + std::to_string(i) + (where.empty() ? "" : " (" + where + ")");
  }

  std::optional<DType> dtype_;
  std::vector<NpyHeader> headers_;
};

}  // namespace

SLUICE_REGISTER_OPERATORS(RegisterNumpyDecoder) {
  r.Register(OpSchema("decoders.numpy")
                 .Doc("Decodes serialized NumPy arrays (the bytes of .npy files, versions 1.0-3.0) into tensors of the "
                      "arrays' shape and type, C order (Fortran-order arrays are transposed). The samples of a batch must "
                      "have one number of dimensions and, without `dtype`, one type (DALI's decoders.numpy).")
                 .Input("data", "The .npy files' bytes, one 1-D uint8 tensor per sample.", {DType::kUInt8})
                 .Output("arrays", "The decoded arrays.")
                 .Arg("dtype", ArgType::kDType, std::string("uint8"),
                      "The output type: every sample is converted to it by cast's rules (rounding, saturation). Not given "
                      "(default): the arrays' own type, which must be one for the batch.")
                 .Factory("cpu", MakeFactory<NumpyDecoder>()));
}

}  // namespace sluice
