"""DALI's ``nvidia.dali.backend`` memory functions: the process-wide buffer policy.

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
import numbers

from . import _sluice
from .errors import SluiceError

_Config = _sluice.MemoryConfig

__all__ = ["SetHostBufferShrinkThreshold", "SetHostBufferGrowthFactor", "SetDeviceBufferGrowthFactor",
           "SetBufferGrowthFactor", "GetHostBufferShrinkThreshold", "GetHostBufferGrowthFactor",
           "GetDeviceBufferGrowthFactor"]


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
