"""TensorCPU, one tensor in host memory, and the reading of Python data as host arrays.

:func:`_host_array` takes what DALI's constructors take (an array, a TensorCPU, an object with the
buffer protocol or ``__array_interface__``, a DLPack capsule or an object with ``__dlpack__``) as a
NumPy array over the same memory, which must be C-contiguous and of a numeric DALI type. A
TensorCPU of a pipeline output is a read-only view that keeps the output's buffer alive; one made
in Python shares the caller's (writable) memory.
"""
import ctypes
import operator

import numpy as np

from ..types import DALIDataType
from .dlpack import _DLPACK_CPU, _KDLCPU, _KDLCUDAHOST, _CapsuleHolder, _is_capsule, dlpack_tensor_of
from .host import (_address, _alias, _check_dense_strides, _check_layout, _dali_dtype, _numpy_dtype_of,
                   _void_ptr_value)
from .printing import _tensor_to_string


def _host_array(obj, what):
    """`obj` (an array, a TensorCPU, an object with the buffer protocol, a DLPack capsule or an object
    with ``__dlpack__``) as a NumPy array over the same memory, checked as DALI checks it."""
    if isinstance(obj, TensorCPU):
        return obj._array
    if isinstance(obj, np.ndarray):
        array = obj
    elif _is_capsule(obj):
        dl = dlpack_tensor_of(obj)
        if dl is None:
            raise TypeError(f"{what}: the capsule is not an unconsumed DLPack tensor")
        if dl.device_type not in (_KDLCPU, _KDLCUDAHOST):
            raise TypeError(f"{what}: the DLPack tensor is not in host memory (device type "
                            f"{dl.device_type}); use the GPU classes or copy it to the host first")
        array = np.from_dlpack(_CapsuleHolder(obj, _DLPACK_CPU))
    elif hasattr(obj, "__array_interface__"):
        array = np.asarray(obj)
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device = tuple(obj.__dlpack_device__())
        if int(device[0]) not in (_KDLCPU, _KDLCUDAHOST):
            raise TypeError(f"{what}: the object is not in host memory (DLPack device {device})")
        array = np.from_dlpack(obj)
    else:
        try:
            array = np.asarray(memoryview(obj))
        except TypeError:
            raise TypeError(f"{what}: expected an array (buffer protocol, __array_interface__ or DLPack), got "
                            f"{type(obj).__name__}") from None
    _dali_dtype(array.dtype)
    _check_dense_strides(array, what)
    return array


class TensorCPU:
    """One tensor in host memory: a sample of a batch, a whole dense batch (``as_tensor()``), or data
    wrapped from Python: ``TensorCPU(b, layout=None)`` with `b` an array (buffer protocol or
    ``__array_interface__``), a DLPack capsule or an object with ``__dlpack__`` (a torch tensor); the
    memory is shared, not copied, and must be C-contiguous."""

    def __init__(self, b, layout=None, is_pinned=False):
        if is_pinned:
            raise ValueError("TensorCPU(is_pinned=True): Sluice does not wrap page-locked memory as such")
        array = _host_array(b, "TensorCPU")
        self._set(array, array, _check_layout(layout, array.ndim, "Tensor"), None, b)

    @classmethod
    def _wrap(cls, view, layout="", source=None, array=None, owner=None):
        """A tensor over `view` (a nanobind ndarray of a pipeline output, or a NumPy array)."""
        t = cls.__new__(cls)
        t._set(view, np.asarray(view) if array is None else array, layout, source, owner if owner is not None else view)
        return t

    def _set(self, view, array, layout, source, owner):
        self._view = view      # what __dlpack__ exports while the array is unchanged
        self._array = array    # the data as NumPy sees it (read-only for pipeline outputs)
        self._layout = layout
        self._source = source
        self._owner = owner    # keeps the memory alive

    # --- metadata ---
    def shape(self):
        return list(self._array.shape)

    def ndim(self):
        return self._array.ndim

    @property
    def dtype(self):
        return _dali_dtype(self._array.dtype)

    def layout(self):
        return self._layout

    def set_layout(self, layout):
        """Sets the layout (one letter per dimension); None or "" removes it."""
        self._layout = _check_layout(layout, self._array.ndim, "Tensor")

    def source_info(self):
        """Where the sample came from (a file path, or archive:member @offset); "" if unknown."""
        return str(self._source) if self._source is not None else ""

    def get_property(self, name):
        """DALI's tensor properties: "layout" and "source_info" (None when empty); None otherwise."""
        if name == "layout":
            return self._layout or None
        if name == "source_info":
            return self.source_info() or None
        return None

    def nbytes(self):
        return self._array.nbytes

    def __len__(self):
        return len(self._array)

    # --- in-place changes of the view ---
    def squeeze(self, dim=None):
        """Removes dimensions of extent 1 (all of them, or `dim`) and their layout letters; True if the
        shape changed."""
        shape = self._array.shape
        if dim is None:
            axes = [d for d, n in enumerate(shape) if n == 1]
        else:
            d = operator.index(dim)
            if not -len(shape) <= d < len(shape):
                raise IndexError(f"squeeze: dimension {dim} out of range for a tensor of {len(shape)} dimensions")
            d %= len(shape)
            axes = [d] if shape[d] == 1 else []
        if not axes:
            return False
        self._array = self._array.reshape([n for d, n in enumerate(shape) if d not in axes])
        if self._layout:
            self._layout = "".join(c for d, c in enumerate(self._layout) if d not in axes)
        return True

    def reinterpret(self, new_type):
        """Views the elements as another type of the same size (DALIDataType), in place."""
        dtype = _numpy_dtype_of(new_type)
        if dtype.itemsize != self._array.dtype.itemsize:
            raise ValueError(f"reinterpret: the element size must not change ({self.dtype} has "
                             f"{self._array.dtype.itemsize} bytes, {DALIDataType(new_type)} {dtype.itemsize})")
        self._array = self._array.view(dtype)

    # --- data ---
    def as_array(self):
        """A NumPy array (a read-only view for pipeline outputs)."""
        return self._array

    def as_tensor(self):
        return self

    def as_cpu(self):
        """This tensor (already in host memory)."""
        return self

    def data_ptr(self):
        """The address of the first element."""
        return _address(self._array)

    def copy_to_external(self, ptr):
        """Copies the tensor's bytes to host memory at `ptr` (ctypes.c_void_p or int), which must
        hold ``nbytes()``."""
        dst = _void_ptr_value(ptr, "copy_to_external")
        if self._array.nbytes:
            ctypes.memmove(dst, _address(self._array), self._array.nbytes)

    @property
    def __array_interface__(self):
        return self._array.__array_interface__

    def __array__(self, dtype=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def _exportable(self):
        if self._array.flags.writeable:
            return self._array
        return _alias(self._array, self._owner)

    def __dlpack__(self, stream=None, **kwargs):
        if self._view is None or isinstance(self._view, np.ndarray) or self._changed():
            array = self._exportable()
            return array.__dlpack__() if stream is None else array.__dlpack__(stream=stream)
        return self._view.__dlpack__(stream=stream, **kwargs)

    def _changed(self):
        """Whether squeeze() or reinterpret() changed the array since it was the pipeline's view."""
        original = np.asarray(self._view)
        return self._array.shape != original.shape or self._array.dtype != original.dtype

    def __dlpack_device__(self):
        return _DLPACK_CPU

    def __str__(self):
        return _tensor_to_string(self)

    def __repr__(self):
        return _tensor_to_string(self, show_data=False)
