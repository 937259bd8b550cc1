// The "mixed" stage: operators that take host data and produce device data.
//
// HostThenUpload gives any CPU operator a "mixed" backend: it runs the CPU implementation (the
// twin, built from the same spec) on the thread pool into pinned host buffers, then copies each
// output to the device with cudaMemcpyAsync on the pipeline's stream. The decoders use it, so
// decoders.image(device="mixed") decodes with the CPU decoder kernels (libjpeg-turbo & co.) and
// produces exactly the CPU operator's pixels, random windows included (the twin sees the same
// operator seed). No nvJPEG: the toolkit this was built with ships no nvjpeg.h.
//
// UploadCopy is `copy` with device="mixed": DALI's `.gpu()`, a host-to-device copy staged through
// pinned memory (the thread pool copies the samples into one pinned buffer, then one async copy).
//
// Both keep their pinned staging and, where they can, their device outputs contiguous (one buffer
// per batch): few allocations while sizes still grow, one cudaMemcpyAsync per batch.
#ifdef SLUICE_WITH_CUDA
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "operators/gpu/gpu_operator.h"

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

class HostThenUpload : public Operator {
 public:
  explicit HostThenUpload(const OpSpec& spec) : Operator(spec) {
    const OperatorFactory* f = OperatorRegistry::Get().GetSchema(spec.op).FindFactory("cpu");
    if (!f) throw Error("operator '" + spec.op + "' has no CPU implementation to run in the mixed stage");
    OpSpec cpu = spec;
    cpu.device = "cpu";
    twin_ = (*f)(cpu);
    // on_error="replace" resizes single samples after the fact: those need per-sample buffers.
    auto it = spec.args.find("on_error");
    contiguous_ = !(it != spec.args.end() && std::holds_alternative<std::string>(it->second) &&
                    std::get<std::string>(it->second) == "replace");
  }
  ~HostThenUpload() override {
    if (event_) {
      (void)cudaEventSynchronize(event_);
      (void)cudaEventDestroy(event_);
    }
  }

  std::vector<OutputDesc> Setup(Workspace& ws) override {
    if (!ws.stream()) throw Error("operator '" + spec_.op + "' runs in the mixed stage but has no CUDA stream");
    // The previous batch's copies read the pinned buffers: wait for them before resizing or writing.
    if (event_) SLUICE_CUDA_CHECK(cudaEventSynchronize(event_));
    Workspace hws = HostWorkspace(ws);
    std::vector<OutputDesc> descs = twin_->Setup(hws);
    if (descs.empty()) {  // the twin sized its outputs itself
      for (auto& tl : pinned_) descs.push_back({tl->shapes(), tl->dtype(), tl->layout(), tl->is_contiguous()});
      return descs;
    }
    for (size_t o = 0; o < descs.size() && o < pinned_.size(); ++o) {
      descs[o].contiguous = descs[o].contiguous || contiguous_;
      TensorList& tl = *pinned_[o];
      if (descs[o].contiguous) ResizePinned(tl, descs[o].shapes, descs[o].dtype, ws.memory());
      else tl.Resize(descs[o].shapes, descs[o].dtype, ws.memory(), false);
      tl.set_layout(descs[o].layout);
      if (ws.num_inputs() > 0 && ws.Input(0).num_samples() == tl.num_samples())
        for (int i = 0; i < tl.num_samples(); ++i) tl.source(i) = ws.Input(0).source(i);
    }
    return descs;
  }

  void Run(Workspace& ws) override {
    Workspace hws = HostWorkspace(ws);
    twin_->Run(hws);
    if (!event_) SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    for (int o = 0; o < ws.num_outputs(); ++o) {
      const TensorList& src = *pinned_[static_cast<size_t>(o)];
      TensorList& dst = ws.Output(o);
      // The CPU implementation may change a sample's shape in Run (on_error="replace").
      for (int i = 0; i < src.num_samples(); ++i) {
        if (!dst.is_contiguous() && dst.shape(i) != src.shape(i)) dst.ResizeSample(i, src.shape(i), ws.memory());
        dst.source(i) = src.source(i);
      }
      CopyBatch(src, dst, ws.stream());
    }
    SLUICE_CUDA_CHECK(cudaEventRecord(event_, ws.stream()));
  }

  std::vector<SampleErrorRecord> error_log() const override { return twin_->error_log(); }
  int64_t replaced_samples() const override { return twin_->replaced_samples(); }
  std::optional<ReaderMeta> reader_meta() const override { return twin_->reader_meta(); }
  void Reset() override { twin_->Reset(); }

 private:
  // The executor's workspace with the outputs replaced by pinned host lists and no stream.
  Workspace HostWorkspace(const Workspace& ws) {
    while (pinned_.size() < static_cast<size_t>(ws.num_outputs()))
      pinned_.push_back(std::make_unique<TensorList>(StorageKind::kPinned));
    Workspace h = ws;
    h.stream_ = nullptr;
    h.outputs_.clear();
    for (int o = 0; o < ws.num_outputs(); ++o) h.outputs_.push_back(pinned_[static_cast<size_t>(o)].get());
    return h;
  }

  std::unique_ptr<Operator> twin_;
  bool contiguous_ = true;
  std::vector<std::unique_ptr<TensorList>> pinned_;
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

void RegisterMixedOperators(OperatorRegistry& r) {
  for (const char* op : {"decoders.image", "decoders.image_random_crop", "decoders.image_crop"})
    AttachBackend(r, op, "mixed", [](const OpSpec& s) { return std::make_unique<HostThenUpload>(s); });
  AttachBackend(r, "copy", "mixed", [](const OpSpec& s) { return std::make_unique<UploadCopy>(s); });
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_CUDA
