// nvJPEG, opened at run time (dlopen) rather than linked: the library is built against nvjpeg.h
// (from the CUDA toolkit or PyPI's nvidia-nvjpeg wheel) but runs where libnvjpeg is absent, and
// then decodes on the host (operators/gpu/mixed_image_decoder.cc says so once).
//
// Where it looks, first hit wins:
//   1. $SLUICE_NVJPEG_LIBRARY (a path);
//   2. beside the Python package: <site-packages>/nvidia/cu<major>/lib/libnvjpeg.so.<major>, found
//      from this library's own location (the wheel that `pip install nvidia-nvjpeg` puts there);
//   3. the folder CMake found at configure time (SLUICE_NVJPEG_LIBRARY_DIR);
//   4. libnvjpeg.so.<major> on the loader's search path (LD_LIBRARY_PATH, the toolkit's ldconfig).
// The library's major version must be the header's.
//
// Internal to src/operators/gpu (only compiled with SLUICE_WITH_NVJPEG). Thread-safe.
#pragma once
#include <nvjpeg.h>

#include <string>

namespace sluice::gpu {

// The entry points Sluice uses, as function pointers of nvjpeg.h's own types.
#define SLUICE_NVJPEG_SYMBOLS(X)                                                                         \
  X(nvjpegGetProperty) X(nvjpegCreateEx) X(nvjpegDestroy) X(nvjpegSetDeviceMemoryPadding)                \
  X(nvjpegSetPinnedMemoryPadding) X(nvjpegGetHardwareDecoderInfo) X(nvjpegJpegStateCreate)               \
  X(nvjpegJpegStateDestroy) X(nvjpegDecodeBatchedInitialize) X(nvjpegDecodeBatchedEx)                    \
  X(nvjpegDecodeBatchedSupportedEx) X(nvjpegDecodeBatchedPreAllocate) X(nvjpegBufferPinnedCreate)        \
  X(nvjpegBufferPinnedDestroy) X(nvjpegBufferPinnedResize) X(nvjpegBufferDeviceCreate)                   \
  X(nvjpegBufferDeviceDestroy) X(nvjpegBufferDeviceResize) X(nvjpegStateAttachPinnedBuffer)              \
  X(nvjpegStateAttachDeviceBuffer) X(nvjpegJpegStreamCreate) X(nvjpegJpegStreamDestroy)                  \
  X(nvjpegJpegStreamParse) X(nvjpegJpegStreamParseHeader) X(nvjpegDecodeParamsCreate)                    \
  X(nvjpegDecodeParamsDestroy) X(nvjpegDecodeParamsSetOutputFormat) X(nvjpegDecodeParamsSetROI)          \
  X(nvjpegDecoderCreate) X(nvjpegDecoderDestroy) X(nvjpegDecoderJpegSupported) X(nvjpegDecoderStateCreate) \
  X(nvjpegDecodeJpegHost) X(nvjpegDecodeJpegTransferToDevice) X(nvjpegDecodeJpegDevice)

struct NvjpegLibrary {
#define SLUICE_NVJPEG_DECLARE(name) decltype(&::name) name = nullptr;
  SLUICE_NVJPEG_SYMBOLS(SLUICE_NVJPEG_DECLARE)
#undef SLUICE_NVJPEG_DECLARE
  std::string path;                   // the file that was opened
  int major = 0, minor = 0, patch = 0;  // its version (nvjpegGetProperty)
};

struct NvjpegLoad {
  const NvjpegLibrary* library = nullptr;  // null: not found or unusable; see error
  std::string error;                       // what was tried and why it failed
};

// Opens the library once per process (later calls return the same result).
const NvjpegLoad& LoadNvjpeg();

// "NVJPEG_STATUS_BAD_JPEG" and so on.
const char* NvjpegStatusName(nvjpegStatus_t s);

}  // namespace sluice::gpu
