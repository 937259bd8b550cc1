// Internal to the CUDA backend: turns CUDA runtime errors into sluice::Error.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include <sluice/error.h>

namespace sluice::cuda {

[[noreturn]] inline void ThrowCudaError(cudaError_t e, const char* expr, const char* file, int line) {
  throw Error(std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ") in " + expr +
              " at " + file + ":" + std::to_string(line));
}

}  // namespace sluice::cuda

#define SLUICE_CUDA_CHECK(expr)                                                     \
  do {                                                                              \
    const cudaError_t sluice_cuda_err_ = (expr);                                    \
    if (sluice_cuda_err_ != cudaSuccess)                                            \
      ::sluice::cuda::ThrowCudaError(sluice_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)
