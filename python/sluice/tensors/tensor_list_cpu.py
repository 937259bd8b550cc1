"""TensorListCPU, a batch in host memory: a pipeline's output, or made in Python with DALI's
constructors (see the class), and :class:`_HostBatch`, the samples of a batch made in Python with
the interface of a pipeline's ``_sluice.Batch``.

A pipeline's output shares its buffers (read-only views, kept alive while referenced);
``as_tensor()`` is one (N, ...) tensor, a view when the batch is one contiguous buffer, else a copy.
"""
import ctypes
import operator

import numpy as np

from .. import _sluice
from ..types import DALIDataType, to_numpy_type
from .dlpack import _DLPACK_CPU
from .host import (_address, _alias_block, _check_layout, _contiguous, _dali_dtype, _numpy_dtype_of,
                   _void_ptr_value)
from .tensor_cpu import TensorCPU, _host_array
from .tensor_list import _TensorList


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
