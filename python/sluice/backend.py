"""DALI's ``nvidia.dali.backend``: the tensor classes (``TensorCPU``, ``TensorListCPU``, ``TensorGPU``,
``TensorListGPU``: the classes of the objects pipelines return, for ``isinstance``), the library
versions (``GetCudaVersion`` and the others, -1 for what Sluice cannot use), and the memory
functions: the process-wide buffer policy.

Each setter takes effect as its environment variable does, for every Pipeline constructed
afterwards (a pipeline keeps the policy it was made with), and validates its value as the variable
is validated: a value out of range raises ``ValueError`` (as DALI's do) and changes nothing.
A value set here wins over the environment variable.

============================================  ==========================================  ========
function                                      environment variable (``SLUICE_`` or          range
                                              ``DALI_`` prefix)
============================================  ==========================================  ========
``SetHostBufferShrinkThreshold(ratio)``       ``HOST_BUFFER_SHRINK_THRESHOLD`` (0.9)      [0, 1]
``SetHostBufferGrowthFactor(factor)``         ``HOST_BUFFER_GROWTH_FACTOR`` (1)           [1, 4]
``SetDeviceBufferGrowthFactor(factor)``       ``DEVICE_BUFFER_GROWTH_FACTOR`` (1)         [1, 4]
``SetBufferGrowthFactor(factor)``             ``BUFFER_GROWTH_FACTOR`` (host and device)  [1, 4]
============================================  ==========================================  ========

``GetHostBufferShrinkThreshold()``, ``GetHostBufferGrowthFactor()`` and
``GetDeviceBufferGrowthFactor()`` return the values a Pipeline made now would use.
"""
import ctypes
import enum
import numbers
import os
import warnings

from . import _sluice
from .device import cuda_built, cuda_device_count
from .errors import SluiceError
from .tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU, dlpack_tensor_of

_Config = _sluice.MemoryConfig

__all__ = ["SetHostBufferShrinkThreshold", "SetHostBufferGrowthFactor", "SetDeviceBufferGrowthFactor",
           "SetBufferGrowthFactor", "GetHostBufferShrinkThreshold", "GetHostBufferGrowthFactor",
           "GetDeviceBufferGrowthFactor", "TensorCPU", "TensorListCPU", "TensorGPU", "TensorListGPU",
           "GetCudaVersion", "GetCufftVersion", "GetNppVersion", "GetNvjpegVersion", "GetNvimgcodecVersion",
           "GetCUDADeviceCount", "IsDriverInitialized", "CheckDLPackCapsule", "DLDeviceType", "deprecation_warning"]


def _set(setter, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}() takes a number, got {value!r}")
    try:
        setter(float(value))  # the C++ core validates, exactly as for the environment variable
    except SluiceError as e:
        raise ValueError(f"{name}({value!r}): {e}") from None


def SetHostBufferShrinkThreshold(ratio):
    """Host buffers shrink when a new size is below ``ratio`` x capacity: 0 never, 1 always."""
    _set(_Config.set_default_host_shrink_threshold, "SetHostBufferShrinkThreshold", ratio)


def SetHostBufferGrowthFactor(factor):
    """A growing host buffer allocates at least ``factor`` x its capacity."""
    _set(_Config.set_default_host_growth_factor, "SetHostBufferGrowthFactor", factor)


def SetDeviceBufferGrowthFactor(factor):
    """A growing device (or pinned) buffer allocates at least ``factor`` x its capacity."""
    _set(_Config.set_default_device_growth_factor, "SetDeviceBufferGrowthFactor", factor)


def SetBufferGrowthFactor(factor):
    """Both growth factors at once."""
    _set(_Config.set_default_growth_factor, "SetBufferGrowthFactor", factor)


def GetHostBufferShrinkThreshold():
    return _Config.process_default().host_shrink_threshold


def GetHostBufferGrowthFactor():
    return _Config.process_default().host_growth_factor


def GetDeviceBufferGrowthFactor():
    return _Config.process_default().device_growth_factor


def _reset_memory_defaults():
    """Forgets the values set here (the environment alone decides again). For tests."""
    _Config.reset_defaults()


# --- the libraries: what this build of Sluice can use ----------------------------------------------
_DRIVER_NAMES = ("libcuda.so.1", "libcuda.so")


def _loaded_driver():
    """The CUDA driver library if this process has already loaded it (nothing is loaded here)."""
    for name in _DRIVER_NAMES:
        try:
            return ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_NOW)
        except OSError:
            continue
    return None


def GetCudaVersion():
    """The CUDA version the driver supports (``cuDriverGetVersion``: 12040 for 12.4), as DALI's; 0 where
    no driver is installed (as the CUDA runtime reports it); -1 for a build of Sluice without CUDA."""
    if not cuda_built():
        return -1
    for name in _DRIVER_NAMES:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        version = ctypes.c_int(0)
        return version.value if lib.cuDriverGetVersion(ctypes.byref(version)) == 0 else -1
    return 0


def GetCufftVersion():
    """-1: Sluice's operators do not use cuFFT (DALI returns -1 when it cannot use the library)."""
    return -1


def GetNppVersion():
    """-1: Sluice's operators do not use NPP (DALI returns -1 when it cannot use the library)."""
    return -1


def GetNvimgcodecVersion():
    """-1: Sluice does not use nvImageCodec (DALI returns -1 when it cannot use the library)."""
    return -1


def GetNvjpegVersion():
    """-1 for a build without CUDA. With CUDA, Sluice opens libnvjpeg at run time by its own search
    (src/operators/decode/nvjpeg_library.h) and does not report the version to Python yet."""
    if not cuda_built():
        return -1
    raise NotImplementedError("GetNvjpegVersion: this CUDA build of Sluice does not report the nvJPEG version it "
                              "loads to Python (the C++ library has it, in LoadNvjpeg(); it needs a binding)")


def GetCUDADeviceCount():
    """The CUDA devices Sluice can use: 0 without the CUDA backend, a driver or a device."""
    return cuda_device_count()


def IsDriverInitialized():
    """True if this process has already loaded the CUDA driver and it answers (cuDeviceGetCount);
    nothing is loaded to find out."""
    lib = _loaded_driver()
    if lib is None:
        return False
    count = ctypes.c_int(-1)
    return lib.cuDeviceGetCount(ctypes.byref(count)) == 0


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (dlpack.h), as DALI's ``backend.DLDeviceType``."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def CheckDLPackCapsule(p):
    """DALI's check of a DLPack capsule, without consuming it: (whether it is a host or CUDA tensor,
    whether it is a CUDA tensor); (False, False) for anything that is not an unconsumed capsule."""
    dl = dlpack_tensor_of(p)
    if dl is None:
        return (False, False)
    kind = dl.device_type
    return (kind in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDA), kind == DLDeviceType.kDLCUDA)


def deprecation_warning(what):
    """Shows a deprecation `what` once per place (DALI's helper)."""
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.warn(what, Warning, stacklevel=2)
