// The "mixed" stage's copy: `copy` with device="mixed" is DALI's `.gpu()`, a host-to-device copy
// staged through pinned memory (the thread pool copies the samples into one pinned buffer, then
// one async copy). Its pinned staging and device output stay contiguous (one buffer per batch):
// few allocations while sizes still grow, one cudaMemcpyAsync per batch. The mixed decoders are in
// mixed_image_decoder.cc.
#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/gpu/pinned_upload.h"

namespace sluice::gpu {
namespace {

class UploadCopy : public Operator {
 public:
  using Operator::Operator;
  ~UploadCopy() override {
    if (event_) {
      (void)cudaEventSynchronize(event_);
      (void)cudaEventDestroy(event_);
    }
  }
  std::vector<OutputDesc> Setup(Workspace& ws) override {
    if (!ws.stream()) throw Error("copy runs in the mixed stage but has no CUDA stream");
    const TensorList& in = ws.Input(0);
    if (event_) SLUICE_CUDA_CHECK(cudaEventSynchronize(event_));  // the last copy from pinned_ is done
    ResizePinned(pinned_, in.shapes(), in.dtype(), ws.memory());
    return {{in.shapes(), in.dtype(), in.layout(), true}};
  }
  void Run(Workspace& ws) override {
    const TensorList& in = ws.Input(0);
    ForEachSample(ws, [&](int i, int) {
      if (in.sample_bytes(i)) std::memcpy(pinned_.raw_mutable_sample(i), in.raw_sample(i), in.sample_bytes(i));
    });
    if (!event_) SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    CopyBatch(pinned_, ws.Output(0), ws.stream());
    SLUICE_CUDA_CHECK(cudaEventRecord(event_, ws.stream()));
  }

 private:
  TensorList pinned_{StorageKind::kPinned};
  cudaEvent_t event_ = nullptr;
};

}  // namespace

SLUICE_REGISTER_BACKENDS(RegisterMixedOperators) {
  AttachBackend(r, "copy", "mixed", MakeFactory<UploadCopy>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
