// The extension module sluice._sluice: the bound classes, registered in dependency order.
#include <sluice/cuda.h>

#include "bindings.h"

namespace sluice::python {

nb::dlpack::dtype ToDLPack(DType t) {
  using C = nb::dlpack::dtype_code;
  auto make = [](C code, size_t bytes) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bytes * 8), 1};
  };
  switch (t) {
    case DType::kUInt8: case DType::kUInt16: case DType::kUInt32: case DType::kUInt64: return make(C::UInt, SizeOf(t));
    case DType::kInt8: case DType::kInt16: case DType::kInt32: case DType::kInt64: return make(C::Int, SizeOf(t));
    case DType::kFloat16: case DType::kFloat32: case DType::kFloat64: return make(C::Float, SizeOf(t));
    case DType::kBool: return make(C::Bool, 1);
  }
  return make(C::UInt, 1);
}

std::optional<DType> FromDLPack(nb::dlpack::dtype t) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    if (ToDLPack(d) == t) return d;
  }
  return std::nullopt;
}

}  // namespace sluice::python

NB_MODULE(_sluice, m) {
  using namespace sluice::python;
  m.doc() = "Sluice's C++ core. Use the `sluice` package rather than this module directly.";
  m.attr("cuda_built") = sluice::BuiltWithCuda();
  // Loads the CUDA driver (when built with CUDA): called only when a GPU operator is requested.
  m.def("cuda_device_count", &sluice::CudaDeviceCount);
  BindError(m);
  BindOperatorInfo(m);
  BindBatch(m);
  BindStatistics(m);
  BindPythonFunction(m);
  BindPipelineOptions(m);
  BindPipeline(m);
  BindWdsIndex(m);
  BindTfRecordIndex(m);
  BindStorage(m);
  BindOperatorLibrary(m);
}
