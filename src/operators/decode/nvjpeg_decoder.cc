#ifdef SLUICE_WITH_NVJPEG
#include "operators/decode/nvjpeg_decoder.h"

#include <sluice/error.h>

#include <algorithm>

#include "core/cuda/cuda_check.h"

namespace sluice::gpu {
namespace {

std::string Failed(const char* call, nvjpegStatus_t s) { return std::string(call) + " failed: " + NvjpegStatusName(s); }

void Check(nvjpegStatus_t s, const char* call) {
  if (s != NVJPEG_STATUS_SUCCESS) throw Error("nvJPEG: " + Failed(call, s));
}

#define SLUICE_NVJPEG_TRY(call)                                   \
  do {                                                            \
    const nvjpegStatus_t sluice_nvjpeg_s_ = (call);               \
    if (sluice_nvjpeg_s_ != NVJPEG_STATUS_SUCCESS)                \
      return Failed(#call, sluice_nvjpeg_s_);                     \
  } while (0)

// Chroma is upsampled by interpolation (libjpeg-turbo's "fancy" upsampling, what the host decoder
// does) where the backend accepts the flag. Bitstream errors (a truncated file) are errors, as on
// the host, rather than grey rows: the sample then goes to the host decoder, where on_error applies.
nvjpegStatus_t CreateHandle(const NvjpegLibrary& lib, nvjpegBackend_t backend, nvjpegHandle_t* h, bool* interpolated) {
  const unsigned strict = NVJPEG_FLAGS_BITSTREAM_STRICT;
  nvjpegStatus_t s = lib.nvjpegCreateEx(backend, nullptr, nullptr, strict | NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION, h);
  *interpolated = s == NVJPEG_STATUS_SUCCESS;
  for (unsigned flags : {strict, unsigned{NVJPEG_FLAGS_DEFAULT}}) {
    if (s == NVJPEG_STATUS_SUCCESS) break;
    *h = nullptr;
    s = lib.nvjpegCreateEx(backend, nullptr, nullptr, flags, h);
  }
  if (s != NVJPEG_STATUS_SUCCESS) *h = nullptr;
  return s;
}

}  // namespace

nvjpegOutputFormat_t NvjpegFormat(int output_channels, bool bgr) {
  if (output_channels == 1) return NVJPEG_OUTPUT_Y;
  return bgr ? NVJPEG_OUTPUT_BGRI : NVJPEG_OUTPUT_RGBI;
}

NvjpegDecoder::NvjpegDecoder(const NvjpegOptions& o, int num_threads) {
  const NvjpegLoad& load = LoadNvjpeg();
  if (!load.library) throw Error("nvJPEG unavailable: " + load.error);
  lib_ = load.library;
  SLUICE_CUDA_CHECK(cudaGetDevice(&device_));
  try {
    bool interpolated = false;
    Check(CreateHandle(*lib_, NVJPEG_BACKEND_DEFAULT, &handle_, &interpolated), "nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT)");
    Check(lib_->nvjpegSetDeviceMemoryPadding(o.device_memory_padding, handle_), "nvjpegSetDeviceMemoryPadding");
    Check(lib_->nvjpegSetPinnedMemoryPadding(o.host_memory_padding, handle_), "nvjpegSetPinnedMemoryPadding");
    Check(lib_->nvjpegDecoderCreate(handle_, NVJPEG_BACKEND_HYBRID, &decoders_[0]), "nvjpegDecoderCreate(HYBRID)");
    Check(lib_->nvjpegDecoderCreate(handle_, NVJPEG_BACKEND_GPU_HYBRID, &decoders_[1]), "nvjpegDecoderCreate(GPU_HYBRID)");
    SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&batch_start_, cudaEventDisableTiming));
    const size_t hint = size_t(std::max(o.preallocate_width, 0)) * size_t(std::max(o.preallocate_height, 0)) * 3;
    threads_.resize(static_cast<size_t>(std::max(num_threads, 1)));
    for (ThreadState& ts : threads_) {
      SLUICE_CUDA_CHECK(cudaStreamCreateWithFlags(&ts.stream, cudaStreamNonBlocking));
      SLUICE_CUDA_CHECK(cudaEventCreateWithFlags(&ts.done, cudaEventDisableTiming));
      SLUICE_CUDA_CHECK(cudaEventRecord(ts.done, ts.stream));  // so that the first wait returns at once
      Check(lib_->nvjpegBufferDeviceCreate(handle_, nullptr, &ts.device), "nvjpegBufferDeviceCreate");
      Check(lib_->nvjpegDecodeParamsCreate(handle_, &ts.params), "nvjpegDecodeParamsCreate");
      if (hint) Check(lib_->nvjpegBufferDeviceResize(ts.device, hint, ts.stream), "nvjpegBufferDeviceResize");
      for (Page& p : ts.pages) {
        Check(lib_->nvjpegBufferPinnedCreate(handle_, nullptr, &p.pinned), "nvjpegBufferPinnedCreate");
        Check(lib_->nvjpegJpegStreamCreate(handle_, &p.stream), "nvjpegJpegStreamCreate");
        for (int b = 0; b < 2; ++b)
          Check(lib_->nvjpegDecoderStateCreate(handle_, decoders_[b], &p.state[b]), "nvjpegDecoderStateCreate");
        // The Huffman pass writes 16-bit coefficients: twice the pixels' bytes at most.
        if (hint) Check(lib_->nvjpegBufferPinnedResize(p.pinned, hint * 2, ts.stream), "nvjpegBufferPinnedResize");
      }
    }
    description_ = "nvJPEG " + std::to_string(lib_->major) + "." + std::to_string(lib_->minor) + "." +
                   std::to_string(lib_->patch) + " from " + lib_->path +
                   (interpolated ? "" : " (chroma upsampling without interpolation: this nvJPEG lacks the flag)");
    if (o.use_hardware) OpenHardware(o);
    else description_ += "; hardware decoder: not used (hw_decoder_load=0)";
  } catch (...) {
    Destroy();
    throw;
  }
}

void NvjpegDecoder::OpenHardware(const NvjpegOptions& o) {
  bool interpolated = false;
  const nvjpegStatus_t s = CreateHandle(*lib_, NVJPEG_BACKEND_HARDWARE, &hw_handle_, &interpolated);
  if (s != NVJPEG_STATUS_SUCCESS) {  // no JPEG engines on this device (ARCH_MISMATCH, NOT_SUPPORTED)
    description_ += std::string("; hardware decoder: none (") + NvjpegStatusName(s) + ")";
    return;
  }
  unsigned engines = 0, cores = 0;
  if (lib_->nvjpegGetHardwareDecoderInfo(hw_handle_, &engines, &cores) != NVJPEG_STATUS_SUCCESS || engines == 0) {
    lib_->nvjpegDestroy(hw_handle_);
    hw_handle_ = nullptr;
    description_ += "; hardware decoder: none (0 engines)";
    return;
  }
  Check(lib_->nvjpegSetDeviceMemoryPadding(o.device_memory_padding, hw_handle_), "nvjpegSetDeviceMemoryPadding");
  Check(lib_->nvjpegSetPinnedMemoryPadding(o.host_memory_padding, hw_handle_), "nvjpegSetPinnedMemoryPadding");
  Check(lib_->nvjpegJpegStateCreate(hw_handle_, &hw_state_), "nvjpegJpegStateCreate(HARDWARE)");
  for (ThreadState& ts : threads_) {
    Check(lib_->nvjpegJpegStreamCreate(hw_handle_, &ts.hw_probe), "nvjpegJpegStreamCreate(HARDWARE)");
    Check(lib_->nvjpegDecodeParamsCreate(hw_handle_, &ts.hw_params), "nvjpegDecodeParamsCreate(HARDWARE)");
  }
  if (o.preallocate_width > 0 && o.preallocate_height > 0)  // a hint: a refusal only costs the up-front sizing
    (void)lib_->nvjpegDecodeBatchedPreAllocate(hw_handle_, hw_state_, std::max(o.max_batch_size, 1), o.preallocate_width,
                                               o.preallocate_height, NVJPEG_CSS_444, NVJPEG_OUTPUT_RGBI);
  description_ += "; hardware decoder: " + std::to_string(engines) + " engine(s) x " + std::to_string(cores) +
                  " core(s)" + (interpolated ? "" : " (without interpolated upsampling)");
}

NvjpegDecoder::~NvjpegDecoder() { Destroy(); }

void NvjpegDecoder::Destroy() noexcept {
  if (!lib_) return;
  for (ThreadState& ts : threads_)
    if (ts.stream) (void)cudaStreamSynchronize(ts.stream);  // nothing may still use the buffers below
  for (ThreadState& ts : threads_) {
    for (Page& p : ts.pages) {
      for (auto& st : p.state)
        if (st) lib_->nvjpegJpegStateDestroy(st);
      if (p.stream) lib_->nvjpegJpegStreamDestroy(p.stream);
      if (p.pinned) lib_->nvjpegBufferPinnedDestroy(p.pinned);
    }
    if (ts.hw_probe) lib_->nvjpegJpegStreamDestroy(ts.hw_probe);
    if (ts.hw_params) lib_->nvjpegDecodeParamsDestroy(ts.hw_params);
    if (ts.params) lib_->nvjpegDecodeParamsDestroy(ts.params);
    if (ts.device) lib_->nvjpegBufferDeviceDestroy(ts.device);
    if (ts.done) (void)cudaEventDestroy(ts.done);
    if (ts.stream) (void)cudaStreamDestroy(ts.stream);
  }
  threads_.clear();
  for (auto p : hw_params_)
    if (p) lib_->nvjpegDecodeParamsDestroy(p);
  hw_params_.clear();
  if (hw_state_) lib_->nvjpegJpegStateDestroy(hw_state_);
  if (hw_handle_) lib_->nvjpegDestroy(hw_handle_);
  for (auto& d : decoders_)
    if (d) lib_->nvjpegDecoderDestroy(d);
  if (handle_) lib_->nvjpegDestroy(handle_);
  if (batch_start_) (void)cudaEventDestroy(batch_start_);
  hw_state_ = nullptr;
  hw_handle_ = handle_ = nullptr;
  batch_start_ = nullptr;
  lib_ = nullptr;
}

NvjpegDecoder::ThreadState& NvjpegDecoder::Thread(int thread) {
  if (thread < 0 || static_cast<size_t>(thread) >= threads_.size())
    throw Error("nvJPEG: pool thread " + std::to_string(thread) + " has no decoder state (" +
                std::to_string(threads_.size()) + " threads were set up)");
  return threads_[static_cast<size_t>(thread)];
}

void NvjpegDecoder::SetParams(nvjpegDecodeParams_t p, const NvjpegTarget& t, nvjpegOutputFormat_t format) {
  Check(lib_->nvjpegDecodeParamsSetOutputFormat(p, format), "nvjpegDecodeParamsSetOutputFormat");
  if (t.roi) Check(lib_->nvjpegDecodeParamsSetROI(p, t.roi->x, t.roi->y, t.roi->w, t.roi->h), "nvjpegDecodeParamsSetROI");
  else Check(lib_->nvjpegDecodeParamsSetROI(p, 0, 0, -1, -1), "nvjpegDecodeParamsSetROI");
}

bool NvjpegDecoder::HardwareSupports(int thread, const NvjpegTarget& t, nvjpegOutputFormat_t format) {
  if (!hw_handle_) return false;
  ThreadState& ts = Thread(thread);
  if (lib_->nvjpegJpegStreamParseHeader(hw_handle_, t.data, t.size, ts.hw_probe) != NVJPEG_STATUS_SUCCESS) return false;
  SetParams(ts.hw_params, t, format);
  int unsupported = 1;  // nvJPEG's convention: 0 means supported
  return lib_->nvjpegDecodeBatchedSupportedEx(hw_handle_, ts.hw_probe, ts.hw_params, &unsupported) ==
             NVJPEG_STATUS_SUCCESS &&
         unsupported == 0;
}

void NvjpegDecoder::BeginBatch(cudaStream_t stream) {
  SLUICE_CUDA_CHECK(cudaEventRecord(batch_start_, stream));
  for (ThreadState& ts : threads_) ts.must_wait = true;
}

std::string NvjpegDecoder::DecodeHybrid(int thread, const NvjpegTarget& t, nvjpegOutputFormat_t format, bool gpu_huffman) {
  SLUICE_CUDA_CHECK(cudaSetDevice(device_));  // pool threads are not tied to a device
  ThreadState& ts = Thread(thread);
  ts.page ^= 1;
  Page& p = ts.pages[static_cast<size_t>(ts.page)];
  SetParams(ts.params, t, format);
  SLUICE_NVJPEG_TRY(lib_->nvjpegJpegStreamParse(handle_, t.data, t.size, 0, 0, p.stream));
  int b = 0;
  if (gpu_huffman) {
    int unsupported = 1;
    if (lib_->nvjpegDecoderJpegSupported(decoders_[1], p.stream, ts.params, &unsupported) == NVJPEG_STATUS_SUCCESS &&
        unsupported == 0)
      b = 1;
  }
  nvjpegJpegState_t state = p.state[static_cast<size_t>(b)];
  SLUICE_NVJPEG_TRY(lib_->nvjpegStateAttachPinnedBuffer(state, p.pinned));
  SLUICE_NVJPEG_TRY(lib_->nvjpegDecodeJpegHost(handle_, decoders_[b], state, ts.params, p.stream));
  // One device buffer per thread: the previous sample's device pass must be done with it. (That
  // also means the copy out of this page's pinned buffer, two samples ago, has completed.)
  SLUICE_CUDA_CHECK(cudaEventSynchronize(ts.done));
  if (ts.must_wait) {
    SLUICE_CUDA_CHECK(cudaStreamWaitEvent(ts.stream, batch_start_, 0));
    ts.must_wait = false;
  }
  SLUICE_NVJPEG_TRY(lib_->nvjpegStateAttachDeviceBuffer(state, ts.device));
  ts.used = true;  // from here on work may be queued: JoinInto must wait for it even on failure
  nvjpegImage_t image{};
  image.channel[0] = t.out;
  image.pitch[0] = static_cast<size_t>(t.width) * static_cast<size_t>(t.channels);
  const nvjpegStatus_t s1 = lib_->nvjpegDecodeJpegTransferToDevice(handle_, decoders_[b], state, p.stream, ts.stream);
  const nvjpegStatus_t s2 =
      s1 == NVJPEG_STATUS_SUCCESS ? lib_->nvjpegDecodeJpegDevice(handle_, decoders_[b], state, &image, ts.stream) : s1;
  SLUICE_CUDA_CHECK(cudaEventRecord(ts.done, ts.stream));
  if (s1 != NVJPEG_STATUS_SUCCESS) return Failed("nvjpegDecodeJpegTransferToDevice", s1);
  if (s2 != NVJPEG_STATUS_SUCCESS) return Failed("nvjpegDecodeJpegDevice", s2);
  return {};
}

void NvjpegDecoder::JoinInto(cudaStream_t stream) {
  for (ThreadState& ts : threads_) {
    if (!ts.used) continue;
    SLUICE_CUDA_CHECK(cudaStreamWaitEvent(stream, ts.done, 0));
    ts.used = false;
  }
}

std::string NvjpegDecoder::DecodeHardware(const std::vector<NvjpegTarget>& targets, nvjpegOutputFormat_t format,
                                          cudaStream_t stream) {
  if (targets.empty()) return {};
  if (!hw_handle_) return "nvJPEG: no hardware decoder on this device";
  const int n = static_cast<int>(targets.size());
  if (n != hw_initialized_batch_ || format != hw_initialized_format_) {
    SLUICE_NVJPEG_TRY(lib_->nvjpegDecodeBatchedInitialize(hw_handle_, hw_state_, n, 1, format));
    hw_initialized_batch_ = n;
    hw_initialized_format_ = format;
  }
  while (hw_params_.size() < targets.size()) {
    nvjpegDecodeParams_t p = nullptr;
    SLUICE_NVJPEG_TRY(lib_->nvjpegDecodeParamsCreate(hw_handle_, &p));
    hw_params_.push_back(p);
  }
  std::vector<const unsigned char*> data(targets.size());
  std::vector<size_t> sizes(targets.size());
  std::vector<nvjpegImage_t> images(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const NvjpegTarget& t = targets[i];
    data[i] = t.data;
    sizes[i] = t.size;
    images[i] = nvjpegImage_t{};
    images[i].channel[0] = t.out;
    images[i].pitch[0] = static_cast<size_t>(t.width) * static_cast<size_t>(t.channels);
    SetParams(hw_params_[i], t, format);
  }
  const nvjpegStatus_t s = lib_->nvjpegDecodeBatchedEx(hw_handle_, hw_state_, data.data(), sizes.data(), images.data(),
                                                       hw_params_.data(), stream);
  if (s != NVJPEG_STATUS_SUCCESS) {
    hw_initialized_batch_ = -1;  // nvJPEG: re-initialise after a failed batch
    return Failed("nvjpegDecodeBatchedEx", s);
  }
  return {};
}

}  // namespace sluice::gpu
#endif  // SLUICE_WITH_NVJPEG
