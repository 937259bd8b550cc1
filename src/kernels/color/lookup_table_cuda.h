// lookup_table on the GPU (color.cu): lookup_table.h's Apply on a batch, bit for bit (a table
// built on the host by LookupTable, uploaded with the descriptors; the kernel only indexes it).
// No CUDA types here: `stream` is a cudaStream_t passed as void*, descriptor and table pointers are
// device pointers. The launcher only enqueues work and throws sluice::Error if the launch fails.
// Thread-safety: reentrant. One launch per batch, one descriptor per sample.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sluice/dtype.h"

namespace sluice::kernels::cuda {

struct LookupTableDesc {
  const void* in;
  void* out;
  int64_t n;
};
// `table`: size + 1 entries of out_elem_size bytes (the last the default). in_type: uint8, int8,
// uint16, int16, int32 or int64; out_elem_size: 1, 2, 4 or 8.
void LaunchLookupTable(const LookupTableDesc* descs, int num_samples, int64_t max_elements, const void* table,
                       int64_t size, DType in_type, size_t out_elem_size, void* stream);

}  // namespace sluice::kernels::cuda
