// Internal to the CUDA backend: a pinned host buffer mirrored by a device buffer, for per-batch
// descriptors and coefficient tables that GPU operators build on the host and upload once per
// batch (one cudaMemcpyAsync), and a device scratch buffer.
//
// Ordering: the host side is rewritten every batch while the previous batch's copy may still be
// in flight, so Prepare() first waits for the event recorded by the previous Upload(). Both buffers
// only grow. Not thread-safe: one operator instance owns one staging object.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <sluice/memory_config.h>

#include "core/buffer.h"
#include "core/cuda/cuda_check.h"

namespace sluice::cuda {

class UploadStaging {
 public:
  UploadStaging() : host_(StorageKind::kPinned), device_(StorageKind::kDevice) {}
  ~UploadStaging() {
    if (event_) {
      (void)cudaEventSynchronize(event_);
      (void)cudaEventDestroy(event_);
    }
  }
  UploadStaging(const UploadStaging&) = delete;
  UploadStaging& operator=(const UploadStaging&) = delete;

  struct Area {
    uint8_t* host;    // write here (the previous upload from it has completed)
    uint8_t* device;  // where it will be on the device (pointers into it may be written on the host)
  };
  // Sizes both sides for `bytes` bytes. Call Upload() after filling the host side.
  Area Prepare(size_t bytes, const MemoryConfig& cfg) {
    if (event_) SLUICE_CUDA_CHECK(cudaEventSynchronize(event_));
    host_.Resize(bytes, cfg);
    device_.Resize(bytes, cfg);
    return {static_cast<uint8_t*>(host_.data()), static_cast<uint8_t*>(device_.data())};
  }
  // Copies the first `bytes` bytes of the host side to the device side on `stream` (kernels
  // enqueued on `stream` afterwards see them).
  void Upload(size_t bytes, cudaStream_t stream) {
    if (!event_) SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming));
    if (bytes) SLUICE_CUDA_CHECK(cudaMemcpyAsync(device_.data(), host_.data(), bytes, cudaMemcpyHostToDevice, stream));
    SLUICE_CUDA_CHECK(cudaEventRecord(event_, stream));
  }

 private:
  Buffer host_, device_;
  cudaEvent_t event_ = nullptr;
};

// Device scratch that only grows; stream-ordered use by one operator needs no extra sync.
class DeviceScratch {
 public:
  DeviceScratch() : buf_(StorageKind::kDevice) {}
  uint8_t* Get(size_t bytes, const MemoryConfig& cfg) {
    buf_.Resize(bytes, cfg);
    return static_cast<uint8_t*>(buf_.data());
  }

 private:
  Buffer buf_;
};

// Lays out several arrays back to back in one staging buffer (each aligned to 16 bytes).
class Packer {
 public:
  template <typename T>
  size_t Add(size_t count) {
    offset_ = (offset_ + 15) / 16 * 16;
    const size_t at = offset_;
    offset_ += count * sizeof(T);
    return at;
  }
  size_t size() const { return offset_; }

 private:
  size_t offset_ = 0;
};

}  // namespace sluice::cuda
