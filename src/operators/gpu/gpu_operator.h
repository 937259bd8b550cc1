// Base of the "gpu" operators. A GPU operator computes in Setup the same backend-neutral plan as
// its CPU operator, with the same function (operators/<family>/*_plan.h: the checks, shapes, layouts
// and error messages are the CPU operator's), turns it into one kernel descriptor per sample in
// pinned memory, uploads them with one copy and launches one kernel per pass for the whole batch
// on the pipeline's stream (ws.stream()). Nothing here synchronizes: the executor waits for the
// batch's event before handing it out.
//
// Internal to src/operators/gpu (only compiled with SLUICE_WITH_CUDA).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/cuda/staging.h"
#include "operators/operator.h"
#include "operators/registry.h"

namespace sluice::gpu {

class GpuOperator : public Operator {
 public:
  using Operator::Operator;

 protected:
  static cudaStream_t Stream(const Workspace& ws) { return ws.stream(); }
  void RequireStream(const Workspace& ws) const {
    if (!ws.stream()) throw Error("operator '" + spec_.op + "' runs on the GPU but the pipeline gave it no CUDA stream");
  }
  // The largest element count over the samples of `tl` (for the batched grid).
  static int64_t MaxElements(const TensorList& tl) {
    int64_t m = 0;
    for (int i = 0; i < tl.num_samples(); ++i) m = std::max(m, tl.shape(i).num_elements());
    return m;
  }

  // Writes `descs` into the staging buffer, uploads it, and returns the device copy.
  template <typename Desc>
  const Desc* UploadDescs(const std::vector<Desc>& descs, Workspace& ws) {
    const size_t bytes = descs.size() * sizeof(Desc);
    auto area = staging_.Prepare(bytes, ws.memory());
    if (bytes) std::memcpy(area.host, descs.data(), bytes);
    staging_.Upload(bytes, Stream(ws));
    return reinterpret_cast<const Desc*>(area.device);
  }

  cuda::UploadStaging staging_;
};

// Adds `device` to the schema's backends (keeping the others) and attaches its factory.
inline void AttachBackend(OperatorRegistry& r, const std::string& op, const std::string& device, OperatorFactory f) {
  OpSchema* s = r.FindMutable(op);
  if (!s) return;  // the CPU operator is not registered in this build
  std::vector<std::string> backends = s->backends();
  if (std::find(backends.begin(), backends.end(), device) == backends.end()) backends.push_back(device);
  s->Backends(backends).Factory(device, std::move(f));
}

}  // namespace sluice::gpu
