#include <sluice/pipeline.h>

#include "core/cuda/device.h"
#include "core/tensor_list.h"

namespace sluice {

int Batch::num_samples() const { return impl_->num_samples(); }
DType Batch::dtype() const { return impl_->dtype(); }
const std::string& Batch::layout() const { return impl_->layout(); }
const TensorShape& Batch::shape(int i) const { return impl_->shape(i); }
const std::vector<TensorShape>& Batch::shapes() const { return impl_->shapes(); }
const void* Batch::data(int i) const { return impl_->raw_sample(i); }
size_t Batch::nbytes(int i) const { return impl_->sample_bytes(i); }
const SourceInfo& Batch::source(int i) const { return impl_->source(i); }
bool Batch::is_dense() const { return impl_->is_dense(); }
bool Batch::is_contiguous() const { return impl_->is_contiguous(); }
bool Batch::is_single_tensor() const {
  if (!impl_->is_contiguous() || !impl_->is_dense()) return false;
  return impl_->num_samples() == 1 || impl_->sample_bytes(0) % 64 == 0;
}
std::string Batch::device() const { return impl_->kind() == StorageKind::kDevice ? "gpu" : "cpu"; }

void Batch::WaitOn(void* cuda_stream) const {
  if (ready_event_) cuda::StreamWaitEvent(cuda_stream, ready_event_.get());
}
void Batch::Synchronize() const {
  if (ready_event_) cuda::EventSynchronize(ready_event_.get());
}
Batch Batch::ToHost() const {
  if (device() != "gpu") return *this;
  Synchronize();
  auto host = std::make_shared<TensorList>();
  host->Resize(shapes(), dtype(), MemoryConfig{}, is_contiguous());
  host->set_layout(layout());
  if (num_samples() > 0) cuda::SetDevice(device_id());
  for (int i = 0; i < num_samples(); ++i) {
    host->source(i) = source(i);
    if (nbytes(i)) cuda::MemcpyAsync(host->raw_mutable_sample(i), data(i), nbytes(i), nullptr);
  }
  cuda::StreamSynchronize(nullptr);  // the legacy default stream: the copies above
  return Batch(std::move(host));
}

void Batch::ReleaseOn(void* cuda_stream) const {
  if (impl_->kind() == StorageKind::kDevice && device_id_ >= 0)
    impl_->AddReadFence(cuda::RecordFence(device_id_, cuda_stream));
}

}  // namespace sluice
