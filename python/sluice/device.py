"""Whether GPU operators can run: the CUDA backend built in, and a CUDA device present."""
import functools

from . import _sluice
from .errors import SluiceError


def cuda_built():
    """True if this build of Sluice has the CUDA backend."""
    return bool(_sluice.cuda_built)


@functools.lru_cache(maxsize=None)
def cuda_device_count():
    """Usable CUDA devices (0 without the backend, a driver or a device). Loads the CUDA driver."""
    return _sluice.cuda_device_count() if _sluice.cuda_built else 0


def cuda_available():
    """True if operators can run with device="mixed" or "gpu"."""
    return cuda_device_count() > 0


def check_cuda(op_name, device):
    """Raises SluiceError explaining why `device` cannot run here (never falls back to the CPU)."""
    if not cuda_built():
        raise SluiceError(f"{op_name}: device='{device}' needs the CUDA backend, which is not available in this "
                          f"build of Sluice (built without CUDA). Use device='cpu'.", op=op_name, argument="device")
    if cuda_device_count() == 0:
        raise SluiceError(f"{op_name}: device='{device}' needs a CUDA device: this build has the CUDA backend, but "
                          f"no CUDA device (or driver) is available. Use device='cpu'.", op=op_name, argument="device")
