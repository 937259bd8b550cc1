"""DLPack capsules, read with ctypes (the structures of dlpack.h), and the DLPack device codes.

:func:`dlpack_tensor_of` reads what an unconsumed capsule holds without consuming it (None for
anything else); :class:`_CapsuleHolder` gives a capsule the ``__dlpack__`` protocol, once, for
``np.from_dlpack``. ``_DLPACK_CPU`` is the ``__dlpack_device__`` of host data; ``_KDLCPU``,
``_KDLCUDA``, ``_KDLCUDAHOST`` are DLPack's device types.
"""
import collections
import ctypes

_DLPACK_CPU = (1, 0)
_KDLCPU, _KDLCUDA, _KDLCUDAHOST = 1, 2, 3


# --- DLPack capsules, read with ctypes (the structures of dlpack.h) ---------------------------------
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


_DLInfo = collections.namedtuple("_DLInfo", "data byte_offset device_type device_id ndim")


def dlpack_tensor_of(capsule):
    """What an unconsumed DLPack capsule (named "dltensor") holds: its DLTensor's data pointer, byte
    offset, device type and id, and number of dimensions, read without consuming it; None if
    `capsule` is not one."""
    if not _is_capsule(capsule) or not _capsule_is_valid(capsule, b"dltensor"):
        return None
    dl = _DLManagedTensor.from_address(_capsule_get_pointer(capsule, b"dltensor")).dl_tensor
    return _DLInfo(dl.data or 0, dl.byte_offset, dl.device.device_type, dl.device.device_id, dl.ndim)


class _CapsuleHolder:
    """Gives an unconsumed DLPack capsule the ``__dlpack__`` protocol, for ``np.from_dlpack``."""

    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None, **kwargs):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise BufferError("this DLPack capsule was already consumed")
        return capsule

    def __dlpack_device__(self):
        return self._device
