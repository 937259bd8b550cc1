// The host grid runner: executes a kernel body (host_device.h) for every (blockIdx, threadIdx) of
// a grid, in order, on the calling thread, so that a GPU kernel is checked on a machine without
// one (the HostGrid.* tests). Launchers are written once over an executor type (a template
// parameter `Exec` with `template <typename Body> Run(Dim3 grid, int block, args...)`):
// HostGridExec here, DeviceGridExec in device_grid.cuh. Each launch completes before Run returns,
// as a kernel on one stream completes before the next starts.
//
// Bodies that are correct on the GPU are correct here only if no thread reads what another thread
// of the same launch writes; that is the contract of every body (no shared memory, no atomics).
#pragma once
#include <utility>

#include "kernels/grid/host_device.h"

namespace sluice::kernels::grid {

struct HostGridExec {
  template <typename Body, typename... Args>
  void Run(Dim3 grid, int block, Args... args) {
    GridPos g;
    g.grid = grid;
    g.block = Dim3{static_cast<unsigned>(block), 1, 1};
    for (unsigned bz = 0; bz < grid.z; ++bz)
      for (unsigned by = 0; by < grid.y; ++by)
        for (unsigned bx = 0; bx < grid.x; ++bx) {
          g.block_idx = Dim3{bx, by, bz};
          for (unsigned tx = 0; tx < g.block.x; ++tx) {
            g.thread_idx = Dim3{tx, 0, 0};
            Body::Run(g, args...);
          }
        }
    ++launches;
  }
  int launches = 0;  // kernels run so far (what a test can check of a multi-pass launcher)
};

}  // namespace sluice::kernels::grid
