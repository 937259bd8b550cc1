#include <sluice/cuda.h>

#include "core/cuda/device.h"

namespace sluice {

bool BuiltWithCuda() { return cuda::BuiltWithCuda(); }
int CudaDeviceCount() { return cuda::DeviceCount(); }

}  // namespace sluice
