"""Host memory as the tensor classes use it: element types (NumPy's and DALI's), addresses, writable
aliases of read-only memory, contiguity of samples, raw pointers, and DALI's layout rule.

Helpers only; each raises TypeError or ValueError naming what was wrong with the caller's data.
"""
import ctypes

import numpy as np

from ..types import DALIDataType, dtype_from_name, to_numpy_type


# --- host memory ----------------------------------------------------------------------------------
def _dali_dtype(np_dtype):
    try:
        return dtype_from_name(np.dtype(np_dtype).name)
    except (KeyError, TypeError):
        raise TypeError(f"DALI has no element type for NumPy's {np.dtype(np_dtype)}") from None


def _numpy_dtype_of(dali_type):
    try:
        return np.dtype(to_numpy_type(DALIDataType(dali_type)))
    except (KeyError, ValueError):
        raise TypeError(f"cannot reinterpret as {dali_type!r}: Sluice tensors hold numbers only (the numeric "
                        f"DALIDataTypes)") from None


def _address(array):
    return array.__array_interface__["data"][0]


def _check_dense_strides(array, what):
    if not array.flags.c_contiguous:
        raise ValueError(f"{what}: strided data is not supported (the array is not C-contiguous with shape "
                         f"{array.shape} and strides {array.strides}); pass np.ascontiguousarray(...)")


def _alias(array, owner):
    """A writable array over `array`'s memory (C-contiguous), holding `owner` alive: what DLPack
    exports when `array` is a read-only view (NumPy does not export read-only arrays)."""
    if array.nbytes == 0:
        return np.empty(array.shape, array.dtype)
    buf = (ctypes.c_char * array.nbytes).from_address(_address(array))
    buf._owner = owner
    return np.frombuffer(buf, dtype=np.uint8).view(array.dtype).reshape(array.shape)


def _void_ptr_value(ptr, what):
    """The address in `ptr`: a ctypes.c_void_p (as DALI takes it) or an int."""
    value = ptr.value if isinstance(ptr, ctypes.c_void_p) else ptr
    if isinstance(value, bool) or not isinstance(value, int) or value == 0:
        raise ValueError(f"{what}: expected a non-null pointer (ctypes.c_void_p or int), got {ptr!r}")
    return value


def _check_layout(layout, ndim, what):
    """DALI's rule: a non-empty layout has one letter per dimension; None and "" mean none."""
    if layout is None or layout == "":
        return ""
    if not isinstance(layout, str):
        raise TypeError(f"`layout` must be a string or None, got {type(layout).__name__}")
    if len(layout) != ndim:
        raise ValueError(f"A non-empty layout must have the same number of dimensions as the number of dimensions "
                         f"of the {what}.\nGot: {len(layout)} ({layout})\nExpected: {ndim}.")
    return str(layout)


def _contiguous(arrays):
    """DALI's IsContiguousInMemory: each sample starts where the one before ends (empty ones aside)."""
    arrays = [a for a in arrays if a.size]
    for prev, cur in zip(arrays, arrays[1:]):
        if _address(prev) + prev.nbytes != _address(cur):
            return False
    return True


def _alias_block(arrays, owner):
    """The memory of contiguous samples as one uint8 array (read-only, holding `owner`)."""
    arrays = [a for a in arrays if a.size]
    total = sum(a.nbytes for a in arrays)
    if not total:
        return np.empty((0,), np.uint8)
    buf = (ctypes.c_char * total).from_address(_address(arrays[0]))
    buf._owner = owner
    block = np.frombuffer(buf, dtype=np.uint8)
    block.flags.writeable = all(a.flags.writeable for a in arrays)
    return block
