// nvJPEG on one device, for decoders.image*(device="mixed") (mixed_image_decoder.cc):
//   - the JPEG engines (NVJPEG_BACKEND_HARDWARE, batched): one nvjpegDecodeBatchedEx per batch on
//     the pipeline's stream, ROI per image;
//   - the hybrid backends, decoupled per sample on Sluice's thread pool: nvjpegDecodeJpegHost (the
//     Huffman pass on the CPU, or its set-up for GPU Huffman) on the pool's thread, then the
//     transfer and the IDCT/colour kernels on that thread's own stream. Each thread alternates two
//     pinned buffers, so one sample's host pass overlaps the previous sample's copy; the device
//     buffer is reused only after the previous device pass (an event) is done.
// JoinInto() orders the pipeline's stream after every thread's work of the batch.
//
// Errors: construction throws sluice::Error naming the nvJPEG call and its status; per-sample
// decode failures are returned as text (the caller decodes that sample on the host, where
// on_error applies exactly as on the CPU).
//
// Internal to src/operators/gpu (only compiled with SLUICE_WITH_NVJPEG).
#pragma once
#include <cuda_runtime.h>
#include <nvjpeg.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/crop/crop_window.h"
#include "operators/decode/nvjpeg_library.h"

namespace sluice::gpu {

struct NvjpegOptions {
  size_t device_memory_padding = size_t{16} << 20;  // DALI's device_memory_padding
  size_t host_memory_padding = size_t{8} << 20;     // DALI's host_memory_padding
  int preallocate_width = 0, preallocate_height = 0;  // DALI's preallocate_*_hint: sizes buffers up front
  int max_batch_size = 1;                             // for the hardware decoder's preallocation
  bool use_hardware = true;                           // open the JPEG engines (hw_decoder_load > 0)
};

// One image: encoded bytes on the host, output on the device (HWC, rows packed).
struct NvjpegTarget {
  const uint8_t* data = nullptr;
  size_t size = 0;
  uint8_t* out = nullptr;
  int width = 0, height = 0, channels = 0;  // of the output (the ROI's extents when there is one)
  std::optional<kernels::CropWindow> roi;   // stored (un-oriented) coordinates, full resolution
};

class NvjpegDecoder {
 public:
  // Opens nvJPEG on the calling thread's current device, with per-thread state for `num_threads`
  // pool threads. Throws sluice::Error when the library or the device cannot be used.
  NvjpegDecoder(const NvjpegOptions& options, int num_threads);
  ~NvjpegDecoder();
  NvjpegDecoder(const NvjpegDecoder&) = delete;
  NvjpegDecoder& operator=(const NvjpegDecoder&) = delete;

  bool hardware() const { return hw_handle_ != nullptr; }
  // "nvJPEG 13.3.2 from <path>; hardware decoder: 1 engine(s) x 5 core(s)" (or why none).
  const std::string& description() const { return description_; }

  // Whether the JPEG engines take this image with its ROI (nvjpegDecodeBatchedSupportedEx). Host
  // work only; call from pool thread `thread`.
  bool HardwareSupports(int thread, const NvjpegTarget& t, nvjpegOutputFormat_t format);
  // Orders the batch's hybrid work after what `stream` (the pipeline's) has queued so far: the
  // outputs may be memory that earlier work on it still reads. Call before the pool loop.
  void BeginBatch(cudaStream_t stream);
  // Decodes on pool thread `thread`: GPU-assisted Huffman (NVJPEG_BACKEND_GPU_HYBRID) when
  // gpu_huffman and nvJPEG takes the frame for it, else Huffman on this thread (HYBRID). Empty on
  // success, else what failed.
  std::string DecodeHybrid(int thread, const NvjpegTarget& t, nvjpegOutputFormat_t format, bool gpu_huffman);
  // Makes `stream` wait for everything DecodeHybrid queued since the last JoinInto. Call from the
  // operator's thread once the pool loop is done.
  void JoinInto(cudaStream_t stream);
  // One batched hardware decode queued on `stream`. Empty on success, else what failed (then no
  // output of the batch is valid).
  std::string DecodeHardware(const std::vector<NvjpegTarget>& targets, nvjpegOutputFormat_t format, cudaStream_t stream);

 private:
  struct Page {  // what one sample in flight on a thread holds
    nvjpegBufferPinned_t pinned = nullptr;
    nvjpegJpegStream_t stream = nullptr;
    std::array<nvjpegJpegState_t, 2> state{};  // [0] hybrid, [1] GPU Huffman
  };
  struct ThreadState {
    cudaStream_t stream = nullptr;
    cudaEvent_t done = nullptr;  // the last device pass queued on `stream`
    nvjpegBufferDevice_t device = nullptr;
    nvjpegDecodeParams_t params = nullptr;
    nvjpegJpegStream_t hw_probe = nullptr;  // for HardwareSupports (of the hardware handle)
    nvjpegDecodeParams_t hw_params = nullptr;
    std::array<Page, 2> pages;
    int page = 0;
    bool used = false;        // queued work since the last JoinInto
    bool must_wait = false;   // BeginBatch's event not yet waited for on `stream`
  };
  void SetParams(nvjpegDecodeParams_t p, const NvjpegTarget& t, nvjpegOutputFormat_t format);
  ThreadState& Thread(int thread);
  void OpenHardware(const NvjpegOptions& options);
  void Destroy() noexcept;

  const NvjpegLibrary* lib_ = nullptr;
  int device_ = 0;
  nvjpegHandle_t handle_ = nullptr;  // hybrid backends
  std::array<nvjpegJpegDecoder_t, 2> decoders_{};
  std::vector<ThreadState> threads_;
  cudaEvent_t batch_start_ = nullptr;
  // The hardware decoder (null where the device has no JPEG engines).
  nvjpegHandle_t hw_handle_ = nullptr;
  nvjpegJpegState_t hw_state_ = nullptr;
  std::vector<nvjpegDecodeParams_t> hw_params_;
  int hw_initialized_batch_ = -1;
  nvjpegOutputFormat_t hw_initialized_format_ = NVJPEG_OUTPUT_FORMAT_MAX;
  std::string description_;
};

// nvJPEG's interleaved output format for Sluice's output_type and the image's channel count.
nvjpegOutputFormat_t NvjpegFormat(int output_channels, bool bgr);

}  // namespace sluice::gpu
