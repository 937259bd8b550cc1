// The "mixed" stage: operators that take host data and produce device data.
//
// MixedImageDecoder is decoders.image* with device="mixed": the decoders' shared host component
// (ImageDecoding, decoder_base.h: the CPU decoders' arguments, windows, peek/plan, decode kernels
// and on_error="replace") runs on the thread pool into pinned host buffers, then the batch is
// copied to the device with cudaMemcpyAsync on the pipeline's stream. It produces exactly the CPU
// operator's pixels, random windows included (the same operator seed). No nvJPEG: the toolkit this
// was built with ships no nvjpeg.h.
//
// UploadCopy is `copy` with device="mixed": DALI's `.gpu()`, a host-to-device copy staged through
// pinned memory (the thread pool copies the samples into one pinned buffer, then one async copy).
//
// Both keep their pinned staging and, where they can, their device outputs contiguous (one buffer
// per batch): few allocations while sizes still grow, one cudaMemcpyAsync per batch.
#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "operators/gpu/gpu_operator.h"
#include "operators/image/decoder_base.h"

namespace sluice::gpu {
namespace {

// Copies every sample of `src` (host, pinned or not) to `dst` (device, already sized to the same
// shapes): one copy for the whole batch when both are contiguous with the same layout.
void CopyBatch(const TensorList& src, TensorList& dst, cudaStream_t stream) {
  const int n = src.num_samples();
  if (n == 0) return;
  if (src.is_contiguous() && dst.is_contiguous()) {
    const auto* s0 = static_cast<const char*>(src.raw_sample(0));
    const auto* d0 = static_cast<const char*>(dst.raw_sample(0));
    bool same_offsets = true;
    for (int i = 1; i < n && same_offsets; ++i)
      same_offsets = static_cast<const char*>(src.raw_sample(i)) - s0 == static_cast<const char*>(dst.raw_sample(i)) - d0;
    if (same_offsets) {
      const size_t bytes = static_cast<size_t>(static_cast<const char*>(src.raw_sample(n - 1)) - s0) + src.sample_bytes(n - 1);
      if (bytes) SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(0), s0, bytes, cudaMemcpyDefault, stream));
      return;
    }
  }
  for (int i = 0; i < n; ++i) {
    const size_t bytes = src.sample_bytes(i);
    if (bytes)
      SLUICE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_mutable_sample(i), src.raw_sample(i), bytes, cudaMemcpyDefault, stream));
  }
}

// Sizes a contiguous pinned list for `shapes`, growing its buffer with 25% headroom: pinning
// memory is slow (cudaHostAlloc) and, with random crops, batch sizes keep setting small records.
void ResizePinned(TensorList& tl, const std::vector<TensorShape>& shapes, DType dtype, const MemoryConfig& cfg) {
  size_t total = 0;
  for (const auto& s : shapes) total += (static_cast<size_t>(s.num_elements()) * SizeOf(dtype) + 63) / 64 * 64;
  const int n = static_cast<int>(shapes.size());
  if (n > 0 && total > tl.reserved_bytes()) tl.Reserve(n, (total + total / 4) / static_cast<size_t>(n) + 64, cfg, true);
  tl.Resize(shapes, dtype, cfg, true);
}

class MixedImageDecoder : public Operator {
 public:
  // on_error="replace" resizes single samples after the fact: those need per-sample buffers.
  explicit MixedImageDecoder(const OpSpec& spec)
      : Operator(spec), decoding_(*this), contiguous_(!decoding_.replace_on_error()) {}
  ~MixedImageDecoder() override {
    if (event_) {
      (void)cudaEventSynchronize(event_);
      (void)cudaEventDestroy(event_);
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    if (!ws.stream()) throw Error("operator '" + spec_.op + "' runs in the mixed stage but has no CUDA stream");
    // The previous batch's copies read the pinned buffer: wait for them before resizing or writing.
    if (event_) SLUICE_CUDA_CHECK(cudaEventSynchronize(event_));
    OutputDesc d = decoding_.Setup(*this, ws, [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
    d.contiguous = d.contiguous || contiguous_;
    if (d.contiguous) ResizePinned(pinned_, d.shapes, d.dtype, ws.memory());
    else pinned_.Resize(d.shapes, d.dtype, ws.memory(), false);
    pinned_.set_layout(d.layout);
    for (int i = 0; i < pinned_.num_samples(); ++i) pinned_.source(i) = ws.Input(0).source(i);
    return {d};
  }

  void Run(Workspace& ws) override {
    decoding_.Run(*this, ws, pinned_, [&](const std::function<void(int, int)>& fn) { ForEachSample(ws, fn); });
    if (!event_) SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    TensorList& dst = ws.Output(0);
    // on_error="replace" may have changed a sample's shape in Run.
    for (int i = 0; i < pinned_.num_samples(); ++i) {
      if (!dst.is_contiguous() && dst.shape(i) != pinned_.shape(i)) dst.ResizeSample(i, pinned_.shape(i), ws.memory());
      dst.source(i) = pinned_.source(i);
    }
    CopyBatch(pinned_, dst, ws.stream());
    SLUICE_CUDA_CHECK(cudaEventRecord(event_, ws.stream()));
  }

 private:
  ImageDecoding decoding_;
  bool contiguous_ = true;
  TensorList pinned_{StorageKind::kPinned};
  cudaEvent_t event_ = nullptr;
};

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
  for (const char* op : {"decoders.image", "decoders.image_random_crop", "decoders.image_crop"})
    AttachBackend(r, op, "mixed", MakeFactory<MixedImageDecoder>());
  AttachBackend(r, "copy", "mixed", MakeFactory<UploadCopy>());
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
