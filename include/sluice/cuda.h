// Whether this build of Sluice has its CUDA backend, and the devices it sees. Part of the public
// API.
#pragma once

namespace sluice {

// True when the library was built with the CUDA backend (SLUICE_WITH_CUDA).
bool BuiltWithCuda();
// The number of CUDA devices; 0 without the CUDA backend, a driver or a device. Loads the CUDA
// driver on first use.
int CudaDeviceCount();

}  // namespace sluice
