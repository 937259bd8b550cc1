// The device side of host_device.h's bodies: one generic __global__ that builds a GridPos from
// CUDA's built-ins and calls the body, and the executor that launchers (written once over an
// `Exec`, see host_grid.h) use on the GPU. Device code only (included by .cu files).
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "kernels/grid/host_device.h"

namespace sluice::kernels::grid {

template <typename Body, typename... Args>
__global__ void GridKernel(Args... args) {
  GridPos g;
  g.grid = Dim3{gridDim.x, gridDim.y, gridDim.z};
  g.block = Dim3{blockDim.x, blockDim.y, blockDim.z};
  g.block_idx = Dim3{blockIdx.x, blockIdx.y, blockIdx.z};
  g.thread_idx = Dim3{threadIdx.x, threadIdx.y, threadIdx.z};
  Body::Run(g, args...);
}

// Enqueues each launch on `stream` (no synchronization).
struct DeviceGridExec {
  cudaStream_t stream;
  template <typename Body, typename... Args>
  void Run(Dim3 grid, int block, Args... args) {
    GridKernel<Body, Args...><<<dim3(grid.x, grid.y, grid.z), block, 0, stream>>>(args...);
  }
};

inline void CheckLaunch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw Error(std::string(what) + ": kernel launch failed: " + cudaGetErrorString(e));
}

}  // namespace sluice::kernels::grid
