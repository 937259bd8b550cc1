"""Pipeline outputs and tensors made in Python, as DALI's ``nvidia.dali.tensors`` / ``backend``:
TensorListCPU/TensorCPU, TensorListGPU/TensorGPU; and the conversions of Python data into samples
for external sources (:func:`to_samples`).

Pipeline outputs hand their data over without copying: ``__dlpack__``/``__dlpack_device__`` (for
``torch.utils.dlpack.from_dlpack``, ``np.from_dlpack``, JAX) and ``__array_interface__`` (for
``np.asarray``). The exported views keep the pipeline's output buffers alive while referenced.
Views are read-only for NumPy. ``as_tensor()`` of a batch is one (N, ...) tensor: a view when the
batch is one contiguous buffer, else a copy; a batch whose samples differ in shape cannot be one.

Tensors and batches can also be made in Python, as in DALI: ``TensorCPU(array, layout)``,
``TensorListCPU(array, layout)`` (the leading dimension is the batch; the memory is shared),
``TensorListCPU([arrays or TensorCPU], layout)`` (copied into one contiguous buffer unless
``contiguous=False``), ``TensorListCPU(dlpack_capsule_or_object, layout)`` and
``TensorListCPU.broadcast(tensor, n)``. Their memory is the caller's (writable); they may hold
every numeric type DALI has, and every one of them can be fed to a pipeline.
"""
import collections
import ctypes
import operator

import numpy as np

from . import _sluice
from .types import DALIDataType, dtype_from_name, to_numpy_type

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


def _join(parts, crop, edgeitems, sep=", "):
    if crop:
        parts = parts[:edgeitems] + ["..."] + parts[-edgeitems:]
    return sep.join(parts)


def _tensor_to_string(t, show_data=True):
    """DALI's printing of a tensor: ``TensorCPU(\\n    data,\\n    dtype=...,\\n    layout=...,\\n    shape=[...])``."""
    indent = " " * 4
    layout = t.layout()
    params = []
    if show_data:
        params.append(np.array2string(np.asarray(t.as_cpu()), prefix=indent, edgeitems=2))
    params += [f"dtype={t.dtype}"] + ([f"layout={layout}"] if layout else []) + [f"shape={t.shape()})"]
    return f"{type(t).__name__}(\n{indent}" + _join(params, False, 0, ",\n" + indent)


def _tensorlist_to_string(tl, show_data=True, indent=""):
    """DALI's printing of a batch (data cut to the first and last two samples past 1000 elements)."""
    edgeitems = 2
    spaces = indent + " " * 4
    layout = tl.layout()
    params = []
    if show_data:
        data = tl.as_cpu()
        data_str = "[]"
        if len(data):
            if data.is_dense_tensor():
                data_str = np.array2string(np.asarray(data.as_tensor()), prefix=spaces, edgeitems=edgeitems)
            else:
                arrays = [np.asarray(s) for s in data]
                crop = len(arrays) > 2 * edgeitems + 1 and sum(max(a.size, 1) for a in arrays) > 1000
                if crop:
                    arrays = arrays[:edgeitems] + arrays[-edgeitems:]
                sep = "\n" * arrays[0].ndim + spaces
                strings = [np.array2string(a, prefix=spaces, edgeitems=edgeitems) for a in arrays]
                data_str = f"[{_join(strings, crop, edgeitems, sep)}]"
        params.append(data_str)
    shapes = tl.shape()
    crop = len(shapes) > 16 or (len(shapes) > 2 * edgeitems + 1 and len(shapes) * len(shapes[0]) > 100)
    shape_strs = [str(s) for s in shapes]
    shape_str = _join(shape_strs, crop, edgeitems)
    prefix = "shape=["
    if len(shape_str) > 75:
        shape_str = _join(shape_strs, crop, edgeitems, ", \n" + spaces + " " * len(prefix))
    params += [f"dtype={tl.dtype}"] + ([f'layout="{layout}"'] if layout else []) + \
        [f"num_samples={len(tl)}", f"{prefix}{shape_str}])"]
    return f"{type(tl).__name__}(\n{spaces}" + _join(params, False, 0, ",\n" + spaces)


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


class _HostBatch:
    """A batch made in Python (samples of NumPy arrays), with the interface TensorListCPU uses of a
    pipeline's sluice._sluice.Batch."""

    device = "cpu"

    def __init__(self, arrays, dtype, dense=None, owner=None):
        self._arrays = arrays
        self._dtype = dtype   # NumPy dtype, or None for an empty batch of no type
        self._dense = dense   # the (N, ...) array the samples are rows of, if any
        self._owner = owner

    @property
    def num_samples(self):
        return len(self._arrays)

    @property
    def dtype(self):
        return self._dtype.name if self._dtype is not None else None

    def shape(self, i):
        return tuple(self._arrays[i].shape)

    def shapes(self):
        return [tuple(a.shape) for a in self._arrays]

    def source(self, i):
        return ""

    def sample(self, i):
        return self._arrays[i]

    def is_dense(self):
        return len({a.shape for a in self._arrays}) <= 1

    def is_single_tensor(self):
        return self._dense is not None or (bool(self._arrays) and self.is_dense() and _contiguous(self._arrays))

    def single_tensor(self):
        if self._dense is not None:
            return self._dense
        first = self._arrays[0]
        whole = _alias_block(self._arrays, self._owner)
        return whole.view(first.dtype).reshape((len(self._arrays),) + first.shape)


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


class _TensorList:
    """What CPU and GPU batches share: the batch's metadata."""

    def __len__(self):
        return self._batch.num_samples

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def _index(self, i):
        i = operator.index(i)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{type(self).__name__} index out of range (sample {i} of {n})")
        return i

    def shape(self):
        return [tuple(s) for s in self._batch.shapes()]

    def ndim(self):
        """The number of dimensions of the samples."""
        if self._batch.num_samples:
            return len(self._batch.shape(0))
        return self._empty_ndim

    @property
    def dtype(self):
        name = self._batch.dtype
        return DALIDataType.NO_TYPE if name is None else dtype_from_name(name)

    def layout(self):
        return self._layout

    def set_layout(self, layout):
        """Sets the samples' layout (one letter per dimension); None or "" removes it."""
        self._layout = _check_layout(layout, self.ndim(), "TensorList")

    def source_info(self, i):
        """Where sample i came from (a file path, or archive:member @offset); "" if unknown."""
        return str(self._batch.source(self._index(i)))

    def is_dense_tensor(self):
        """True if every sample has the same shape, so that the batch can be one tensor."""
        return self._batch.is_dense()

    def __str__(self):
        return _tensorlist_to_string(self)

    def __repr__(self):
        return _tensorlist_to_string(self, show_data=False)


class TensorListCPU(_TensorList):
    """A batch of samples of one dtype and layout in host memory; the samples may differ in shape.

    Pipelines return them; DALI's constructors make them in Python:

    * ``TensorListCPU(array, layout=None, is_pinned=False)``: an (N, ...) array (or any object with the
      buffer protocol or ``__array_interface__``, a TensorCPU included) as N samples, sharing its memory;
    * ``TensorListCPU(list_of_tensors, layout=None, contiguous=True)``: TensorCPUs or arrays of one type
      and number of dimensions, copied into one buffer (``contiguous=False`` shares their memory);
    * ``TensorListCPU(dlpack, layout=None)``: a DLPack capsule or an object with ``__dlpack__`` (a torch
      tensor), the leading dimension being the batch;
    * ``TensorListCPU(tensor_list, layout=None)``: the same samples (shared), with another layout;
    * ``TensorListCPU.broadcast(tensor, num_samples)``: one tensor as every sample (shared).
    """

    def __init__(self, obj, layout=None, *args, **kwargs):
        self._tensor = None  # as_tensor(), made once
        self._view_dtype = None  # set by reinterpret()
        self._empty_ndim = 0
        if isinstance(obj, _sluice.Batch):  # a pipeline's output
            self._batch = obj
            self._layout = obj.layout
            return
        if isinstance(obj, TensorListCPU):
            _no_more_args("TensorListCPU(tensor_list, layout)", args, kwargs)
            self._batch, self._view_dtype, self._empty_ndim = obj._batch, obj._view_dtype, obj._empty_ndim
            self._layout = obj._layout
            if layout is not None:
                self.set_layout(layout)
            return
        if isinstance(obj, (list, tuple)):
            contiguous = _one_arg("contiguous", True, args, kwargs)
            self._from_list(list(obj), layout, contiguous)
            return
        if _one_arg("is_pinned", False, args, kwargs):
            raise ValueError("TensorListCPU(is_pinned=True): Sluice does not wrap page-locked memory as such")
        array = _host_array(obj, "TensorListCPU")
        if array.ndim == 0:
            raise ValueError("Cannot create TensorList from 0-dim array.")
        self._batch = _HostBatch([array[i, ...] for i in range(len(array))], array.dtype, dense=array, owner=obj)
        self._empty_ndim = array.ndim - 1
        self._layout = _check_layout(layout, array.ndim - 1, "TensorList")

    def _from_list(self, items, layout, contiguous):
        if not items:
            self._batch = _HostBatch([], None)
            self._empty_ndim = len(layout) if layout else 0
            self._layout = str(layout) if layout else ""
            return
        arrays, layouts = [], []
        for i, item in enumerate(items):
            try:
                a = _host_array(item, "TensorListCPU")
            except (TypeError, ValueError) as e:
                raise TypeError(f"Object at position {i} cannot be converted to TensorCPU. ({e})") from None
            if arrays and a.dtype != arrays[0].dtype:
                raise TypeError(f"Tensors cannot have different data types. Tensor at position {i} has type "
                                f"'{_dali_dtype(a.dtype)}' expected to have type '{_dali_dtype(arrays[0].dtype)}'.")
            if arrays and a.ndim != arrays[0].ndim:
                raise ValueError(f"Samples must have the same dimensionality, expected: {arrays[0].ndim} got: "
                                 f"{a.ndim} at {i}.")
            arrays.append(a)
            layouts.append(item.layout() if isinstance(item, TensorCPU) else "")
        if any(lay != layouts[0] for lay in layouts):
            bad = next(i for i, lay in enumerate(layouts) if lay != layouts[0])
            raise ValueError(f"Samples must have the same layout, expected: {layouts[0]} got: {layouts[bad]} at {bad}.")
        if contiguous:
            block = np.empty(sum(a.size for a in arrays), arrays[0].dtype)
            samples, pos = [], 0
            for a in arrays:
                samples.append(block[pos:pos + a.size].reshape(a.shape))
                samples[-1][...] = a
                pos += a.size
            dense = block.reshape((len(arrays),) + arrays[0].shape) if len({a.shape for a in arrays}) == 1 else None
            self._batch = _HostBatch(samples, arrays[0].dtype, dense=dense, owner=block)
        else:
            self._batch = _HostBatch(arrays, arrays[0].dtype, owner=list(items))
        self._layout = layouts[0]
        if layout:
            self.set_layout(layout)

    @staticmethod
    def broadcast(tensor, num_samples):
        """A batch of `num_samples` samples that are all `tensor` (its memory, shared)."""
        array = _host_array(tensor, "TensorListCPU.broadcast")
        n = operator.index(num_samples)
        if n < 0:
            raise ValueError(f"broadcast: num_samples must be >= 0, got {n}")
        tl = TensorListCPU.__new__(TensorListCPU)
        tl._tensor, tl._view_dtype, tl._empty_ndim = None, None, array.ndim
        tl._batch = _HostBatch([array] * n, array.dtype, owner=tensor)
        tl._layout = tensor.layout() if isinstance(tensor, TensorCPU) else ""
        return tl

    # --- samples ---
    def _sample_array(self, i):
        a = np.asarray(self._batch.sample(i))
        return a.view(self._view_dtype) if self._view_dtype is not None else a

    def __getitem__(self, i):
        i = self._index(i)
        view = self._batch.sample(i)
        if self._view_dtype is None:
            return TensorCPU._wrap(view, self._layout, self._batch.source(i), owner=self._batch)
        return TensorCPU._wrap(None, self._layout, self._batch.source(i), array=self._sample_array(i),
                               owner=(self._batch, view))

    def at(self, i):
        """Sample i as a NumPy array (a read-only view for pipeline outputs)."""
        return self[i].as_array()

    @property
    def dtype(self):
        if self._view_dtype is not None:
            return _dali_dtype(self._view_dtype)
        return super().dtype

    def reinterpret(self, new_type):
        """Views the elements as another type of the same size (DALIDataType), in place."""
        dtype = _numpy_dtype_of(new_type)
        if self.dtype == DALIDataType.NO_TYPE:
            raise ValueError("reinterpret: the batch has no type")
        current = np.dtype(to_numpy_type(self.dtype))
        if dtype.itemsize != current.itemsize:
            raise ValueError(f"reinterpret: the element size must not change ({self.dtype} has {current.itemsize} "
                             f"bytes, {DALIDataType(new_type)} {dtype.itemsize})")
        self._view_dtype = dtype
        self._tensor = None

    def reset(self):
        """Empties the batch (no samples, no type, no layout)."""
        self._batch = _HostBatch([], None)
        self._layout, self._view_dtype, self._tensor, self._empty_ndim = "", None, None, 0

    def is_single_tensor(self):
        """True if the batch is already one (N, ...) tensor in memory (as_tensor() does not copy)."""
        return self._batch.is_single_tensor()

    def _arrays(self):
        return [self._sample_array(i) for i in range(len(self))]

    def _contiguous_block(self, what):
        arrays = self._arrays()
        if not _contiguous(arrays):
            raise ValueError(f"{what}: the batch is not in contiguous memory (its samples are separate buffers)")
        return _alias_block(arrays, self._batch)

    def as_reshaped_tensor(self, new_shape):
        """A TensorCPU viewing the whole batch (contiguous in memory) with the shape `new_shape`, of the
        same number of elements; its layout is "N" + the batch's when it has one more dimension."""
        shape = [operator.index(d) for d in new_shape]
        total = sum(int(np.prod(s)) for s in self._batch.shapes())
        if int(np.prod(shape)) != total:
            raise ValueError(f"To create a view Tensor, requested shape need to have the same volume as the batch, "
                             f"requested: {int(np.prod(shape))} expected: {total}")
        if self.dtype == DALIDataType.NO_TYPE:
            raise ValueError("To create a view Tensor, the batch must have a valid data type.")
        dtype = to_numpy_type(self.dtype)
        block = self._contiguous_block("as_reshaped_tensor")
        array = block.view(dtype).reshape(shape)
        layout = "N" + self._layout if self._layout and len(self._layout) + 1 == len(shape) else ""
        return TensorCPU._wrap(None, layout, array=array, owner=self._batch)

    def as_tensor(self):
        """The batch as one (N, ...) TensorCPU: zero-copy when possible, else one copy; its layout is
        "N" + the batch's. Raises ValueError if the samples differ in shape."""
        if self._tensor is None:
            self._tensor = self._make_tensor()
        return self._tensor

    def _make_tensor(self):
        n = len(self)
        layout = "N" + self._layout if self._layout else ""
        if n and not self._batch.is_dense():
            shapes = ", ".join(str(tuple(s)) for s in self._batch.shapes()[:8])
            more = " ..." if n > 8 else ""
            raise ValueError(f"the batch is not dense (its samples differ in shape: {shapes}{more}), so it cannot "
                             f"be one tensor; use at(i) for each sample, or resize/crop to one shape")
        if n == 0:
            dtype = to_numpy_type(self.dtype) if self.dtype != DALIDataType.NO_TYPE else np.float32
            return TensorCPU._wrap(np.zeros((0,), dtype=dtype), "")
        if self._batch.is_single_tensor():
            view = self._batch.single_tensor()
            if self._view_dtype is None:
                return TensorCPU._wrap(view, layout, owner=self._batch)
            return TensorCPU._wrap(None, layout, array=np.asarray(view).view(self._view_dtype),
                                   owner=(self._batch, view))
        return TensorCPU._wrap(np.stack(self._arrays()), layout)

    def as_cpu(self):
        """This batch (already in host memory); for code written for GPU and CPU outputs alike."""
        return self

    def as_array(self):
        """The batch as one NumPy array (see as_tensor())."""
        return self.as_tensor().as_array()

    def data_ptr(self):
        """The address of the first sample's first element; the batch must be contiguous in memory."""
        if not len(self):
            return 0
        arrays = self._arrays()
        if not _contiguous(arrays):
            raise ValueError("data_ptr: the batch is not in contiguous memory (its samples are separate buffers)")
        return _address(arrays[0])

    def copy_to_external(self, ptr):
        """Copies the samples, one after the other, to host memory at `ptr` (ctypes.c_void_p or int),
        which must hold the batch's bytes."""
        dst = _void_ptr_value(ptr, "copy_to_external")
        for a in self._arrays():
            if a.nbytes:
                ctypes.memmove(dst, _address(a), a.nbytes)
                dst += a.nbytes

    @property
    def __array_interface__(self):
        return self.as_tensor().__array_interface__

    def __array__(self, dtype=None):
        return self.as_tensor().__array__(dtype)

    def __dlpack__(self, stream=None, **kwargs):
        return self.as_tensor().__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return _DLPACK_CPU


def _one_arg(name, default, args, kwargs):
    """The one optional argument after `layout` of a TensorListCPU constructor (positional or named)."""
    if len(args) > 1 or set(kwargs) - {name} or (args and name in kwargs):
        raise TypeError(f"TensorListCPU: unexpected arguments {args!r} {kwargs!r} (this form takes {name!r})")
    return args[0] if args else kwargs.get(name, default)


def _no_more_args(what, args, kwargs):
    if args or kwargs:
        raise TypeError(f"{what} takes no further arguments, got {args or ''}{kwargs or ''}")


def _gpu_data_ptr(view):
    """The device address in a GPU sample's DLPack capsule."""
    dl = dlpack_tensor_of(view.__dlpack__())  # read before the capsule is freed
    return dl.data + dl.byte_offset


class TensorGPU:
    """One tensor in GPU memory (from a "mixed" or "gpu" operator): hand it over by DLPack.

    GPU outputs are handed out as soon as their work is queued on the pipeline's CUDA stream.
    ``__dlpack__(stream=s)`` follows the DLPack protocol: the consumer's stream ``s`` waits for the
    data on the device (the host does not block), and once the consumer frees its tensor the
    pipeline's later writes into the buffer wait for the work ``s`` queued until then.
    ``stream=None`` means the legacy default stream, ``-1`` no ordering (the caller synchronizes).
    """

    def __init__(self, batch, index, shape, layout="", source=None, device_id=0):
        self._batch = batch
        self._index = index  # a sample, or None for the whole batch as one (N, ...) tensor
        self._shape = list(shape)
        self._layout = layout
        self._source = source
        self._device_id = device_id

    def shape(self):
        return list(self._shape)

    def ndim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return dtype_from_name(self._batch.dtype)

    def layout(self):
        return self._layout

    def set_layout(self, layout):
        """Sets the layout (one letter per dimension); None or "" removes it."""
        self._layout = _check_layout(layout, len(self._shape), "Tensor")

    def source_info(self):
        return str(self._source) if self._source is not None else ""

    def get_property(self, name):
        if name == "layout":
            return self._layout or None
        if name == "source_info":
            return self.source_info() or None
        return None

    def device_id(self):
        return self._device_id

    def as_tensor(self):
        return self

    def as_cpu(self):
        """A host copy (TensorCPU) of this tensor, as DALI's TensorGPU.as_cpu(); waits for the data."""
        host = TensorListCPU(self._batch.to_host())
        t = host.as_tensor() if self._index is None else host[self._index]
        t.set_layout(self._layout)
        return t

    def synchronize(self):
        """Blocks until the data is complete (then any stream, or a host copy, may read it)."""
        self._batch.synchronize()

    def data_ptr(self):
        """The device address of the first element (no synchronization)."""
        return _gpu_data_ptr(self._view(-1))

    def copy_to_external(self, ptr, cuda_stream=None, non_blocking=False, use_copy_kernel=False):
        raise NotImplementedError("TensorGPU.copy_to_external: Sluice has no device-to-device copy into a raw pointer "
                                  "(it needs a C++ binding); hand the tensor over by DLPack instead "
                                  "(torch.utils.dlpack.from_dlpack, or plugin.pytorch.feed_ndarray)")

    def _view(self, stream):
        if stream is None:
            stream = 1  # DLPack: None stands for CUDA's legacy default stream
        if stream == 0:
            raise BufferError("DLPack stream 0 is ambiguous for CUDA: pass 1 (legacy default stream), 2 "
                              "(per-thread default stream) or a stream handle")
        release = None
        if stream != -1:
            self._batch.wait_on(stream)
            release = stream
        if self._index is None:
            return self._batch.single_tensor(device_id=self._device_id, release_stream=release)
        return self._batch.sample(self._index, device_id=self._device_id, release_stream=release)

    def __dlpack__(self, stream=None, **kwargs):
        return self._view(stream).__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (_KDLCUDA, self._device_id)

    def __str__(self):
        return _tensor_to_string(self)

    def __repr__(self):
        return _tensor_to_string(self, show_data=False)


class TensorListGPU(_TensorList):
    """A batch in GPU memory. ``__dlpack__`` (e.g. ``torch.utils.dlpack.from_dlpack``) shares it
    without a copy, ordered on the consumer's stream (see TensorGPU); NumPy access needs a
    framework's copy to the host first."""

    def __init__(self, batch, device_id):
        self._batch = batch
        self._device_id = device_id
        self._layout = batch.layout
        self._empty_ndim = 0

    def __getitem__(self, i):
        i = self._index(i)
        return TensorGPU(self._batch, i, self._batch.shape(i), self._layout, self._batch.source(i),
                         self._device_id)

    def device_id(self):
        return self._device_id

    def as_tensor(self):
        """The batch as one (N, ...) TensorGPU, without a copy; the batch must be one contiguous block."""
        if not self._batch.is_single_tensor():
            raise ValueError(f"this GPU batch is not one contiguous tensor (sample shapes: "
                             f"{', '.join(str(tuple(s)) for s in self._batch.shapes()[:8])}); take its samples "
                             f"one by one")
        shape = [len(self)] + list(self._batch.shape(0))
        return TensorGPU(self._batch, None, shape, "N" + self._layout if self._layout else "",
                         device_id=self._device_id)

    def data_ptr(self):
        """The device address of the first sample's first element; the batch must be one block."""
        if not len(self):
            return 0
        if not self._batch.is_contiguous():
            raise ValueError("data_ptr: the batch is not in contiguous memory (its samples are separate buffers)")
        return self[0].data_ptr()

    def copy_to_external(self, ptr, cuda_stream=None, non_blocking=False, use_copy_kernel=False):
        raise NotImplementedError("TensorListGPU.copy_to_external: Sluice has no device-to-device copy into a raw "
                                  "pointer (it needs a C++ binding); hand the batch over by DLPack instead "
                                  "(torch.utils.dlpack.from_dlpack, or plugin.pytorch.feed_ndarray)")

    def synchronize(self):
        """Blocks until the batch is complete (then any stream, or a host copy, may read it)."""
        self._batch.synchronize()

    def as_cpu(self):
        """A host copy of the batch (TensorListCPU: same shapes, layout and sources), as DALI's
        TensorListGPU.as_cpu(); waits for the batch."""
        host = TensorListCPU(self._batch.to_host())
        host.set_layout(self._layout)
        return host

    def as_array(self):
        raise TypeError("GPU data has no NumPy view: use torch.utils.dlpack.from_dlpack(batch).cpu() or similar")

    def __dlpack__(self, stream=None, **kwargs):
        return self.as_tensor().__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return (_KDLCUDA, self._device_id)


def to_sample_array(sample):
    """One sample fed to an external source as a C-contiguous NumPy array (``bytes`` as uint8)."""
    if isinstance(sample, (bytes, bytearray, memoryview)):
        return np.frombuffer(sample, dtype=np.uint8)
    return np.ascontiguousarray(np.asarray(sample))


def to_samples(batch):
    """A batch fed to an external source (an array with a leading sample dimension, or a sequence of
    samples) as a list of sample arrays."""
    if isinstance(batch, np.ndarray):
        if batch.ndim == 0:
            raise ValueError("external_source: a batch must have a leading sample dimension, got a 0-d array")
        return [np.ascontiguousarray(s) for s in batch]
    return [to_sample_array(s) for s in batch]


def wrap_batch(batch, device_id):
    """The Python object for one pipeline output."""
    return TensorListGPU(batch, device_id) if batch.device == "gpu" else TensorListCPU(batch)
