"""``Batch``: samples processed together in dynamic mode (DALI's ``ndd.Batch``), and ``batch()`` /
``as_batch()``.

The samples share a dtype, a number of dimensions and a layout; their shapes may differ. An
operator's result holds the C++ output batch and makes its samples' NumPy views on first use; a
batch made from Python holds the arrays it was given (``as_batch``) or copies (``batch``).

As in DALI, a Batch is not indexable: ``batch.tensors[i]`` / ``batch.select(i)`` pick samples (a
Tensor, or a Batch for a slice or a list), ``batch.slice[...]`` indexes inside every sample.
"""
import numpy as np

from ...tensors.conversions import _c_contiguous
from ...types import to_dali_type
from . import _arith
from ._tensor import Tensor, _OnHost, _as_host_array, _check_device, _sliced_layout, _torch_from_numpy


class Batch(_OnHost):
    """``Batch(data, dtype=None, device=None, layout=None)``: `data` is a list of samples (arrays, torch
    tensors, DLPack objects, Tensors, nested lists) or one array/tensor whose leading dimension is
    the batch. The samples' memory is shared where possible."""

    __slots__ = ("_arrays", "_layout", "_cpp")

    def __init__(self, data, dtype=None, device=None, layout=None):
        _check_device(device)
        self._cpp = None
        if isinstance(data, Batch):
            self._arrays = [_as_host_array(a, dtype, "Batch") for a in data._samples()]
            self._layout = layout if layout is not None else data._layout
            return
        if isinstance(data, (list, tuple)):
            items = list(data)
        else:
            whole = _as_host_array(data, dtype, "Batch")
            if whole.ndim == 0:
                raise ValueError("Batch: one array makes a batch along its leading dimension; got a 0-d array")
            items = list(whole)
        self._arrays = [_as_host_array(s, dtype, f"Batch sample {i}") for i, s in enumerate(items)]
        if layout is None:
            layouts = {s._layout for s in items if isinstance(s, Tensor)}
            layout = layouts.pop() if len(layouts) == 1 else ""
        self._layout = layout or ""
        self._check()

    def _check(self):
        arrays = self._arrays
        if not arrays:
            return
        dt, nd = arrays[0].dtype, arrays[0].ndim
        for i, a in enumerate(arrays):
            if a.dtype != dt:
                raise TypeError(f"Batch: sample {i} has dtype {a.dtype}, sample 0 has {dt}; a batch has one dtype")
            if a.ndim != nd:
                raise ValueError(f"Batch: sample {i} has {a.ndim} dimensions, sample 0 has {nd}")
        if self._layout and len(self._layout) != nd:
            raise ValueError(f"Batch: the layout {self._layout!r} has {len(self._layout)} dimensions, the samples {nd}")

    @classmethod
    def _from_arrays(cls, arrays, layout):
        b = cls.__new__(cls)
        b._arrays, b._layout, b._cpp = list(arrays), layout or "", None
        return b

    @classmethod
    def _from_cpp(cls, cpp_batch):
        """An operator's output: the C++ batch, its samples viewed on first use."""
        b = cls.__new__(cls)
        b._arrays, b._layout, b._cpp = None, cpp_batch.layout, cpp_batch
        return b

    def _samples(self):
        """The samples as NumPy arrays (views of an output batch, read-only)."""
        if self._arrays is None:
            cpp = self._cpp
            self._arrays = [np.asarray(cpp.sample(i)) for i in range(cpp.num_samples)]
        return self._arrays

    @staticmethod
    def broadcast(sample, batch_size, device=None):
        """A batch of `batch_size` references to one sample."""
        _check_device(device)
        t = sample if isinstance(sample, Tensor) else Tensor(sample)
        return Batch._from_arrays([t._array] * int(batch_size), t._layout)

    # --- properties ----------------------------------------------------------------------------
    @property
    def batch_size(self):
        return self._cpp.num_samples if self._arrays is None else len(self._arrays)

    @property
    def shape(self):
        """The samples' shapes: a list of tuples."""
        if self._arrays is None:
            return [tuple(s) for s in self._cpp.shapes()]
        return [tuple(a.shape) for a in self._arrays]

    @property
    def dtype(self):
        if self._arrays is None:
            return to_dali_type(self._cpp.dtype)
        if not self._arrays:
            return None
        return to_dali_type(self._arrays[0].dtype)

    @property
    def layout(self):
        return self._layout or None

    @property
    def device(self):
        return "cpu"

    @property
    def ndim(self):
        arrays = self._samples()
        return arrays[0].ndim if arrays else None

    @property
    def tensors(self):
        """Sample selection: ``batch.tensors[i]`` (a Tensor), ``batch.tensors[a:b]`` or
        ``batch.tensors[[i, j]]`` (a Batch); iterable, with a length."""
        return _Tensors(self)

    def select(self, index):
        """``batch.tensors[index]``."""
        return _Tensors(self)[index]

    @property
    def slice(self):
        """Per-sample indexing: ``batch.slice[0]``, ``batch.slice[:, 1:3]``; an index may be a Batch of
        one integer per sample. Returns a Batch of the same size."""
        return _Slicer(self)

    def __getitem__(self, index):
        raise TypeError("Batch is not indexable: use batch.tensors[i] (or batch.select(i)) to pick samples and "
                        "batch.slice[...] to index inside every sample")

    def _as_tensor(self, layout=None, pad=False):
        arrays = self._samples()
        layout = layout if layout is not None else ("N" + self._layout if self._layout else "")
        if len({a.shape for a in arrays}) > 1:
            if not pad:
                raise ValueError(f"as_tensor: the samples differ in shape ({self.shape}); pass pad=True to pad them "
                                 "to one shape")
            return Tensor._wrap(_padded(arrays), layout)
        return Tensor._wrap(np.stack(arrays) if arrays else np.zeros((0,)), layout)

    def torch(self, copy=None, pad=False):
        """The batch as one torch tensor with a leading batch dimension. Samples of different shapes
        need ``pad=True`` (zero-padded to the largest extent in every dimension)."""
        arrays = self._samples()
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            if not pad:
                raise ValueError(f"Batch.torch(): the samples differ in shape ({self.shape}); pass pad=True to pad "
                                 "them to one shape")
            return _torch_from_numpy(_padded(arrays))
        if self._cpp is not None and self._cpp.is_single_tensor() and not copy:
            return _torch_from_numpy(np.asarray(self._cpp.single_tensor()))  # one buffer: no copy
        return _torch_from_numpy(np.stack(arrays) if arrays else np.zeros((0,)))

    def __array__(self, dtype=None, copy=None):
        arr = self._as_tensor()._array
        return arr if dtype is None else arr.astype(dtype)

    def __repr__(self):
        arrays = self._samples()
        body = ",\n    ".join(np.array2string(a, prefix="    ", threshold=64, edgeitems=2) for a in arrays[:8])
        more = ",\n    ..." if len(arrays) > 8 else ""
        lay = f",\n    layout=\"{self._layout}\"" if self._layout else ""
        dtype = self.dtype.name if arrays else None
        return (f"Batch(\n    [{body}{more}],\n    dtype={dtype},\n    device=\"cpu\"{lay},\n"
                f"    num_samples={len(arrays)},\n    shape={self.shape})")

    __str__ = __repr__


_arith.install_operators(Batch)


def _padded(arrays):
    """Samples of different shapes as one array, each zero-padded at the end to the largest extents."""
    extent = tuple(max(s) for s in zip(*(a.shape for a in arrays)))
    out = np.zeros((len(arrays),) + extent, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
    return out


class _Tensors:
    def __init__(self, batch):
        self._batch = batch

    def __len__(self):
        return self._batch.batch_size

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, index):
        b = self._batch
        arrays = b._samples()
        if isinstance(index, slice):
            return Batch._from_arrays(arrays[index], b._layout)
        if isinstance(index, (list, tuple, np.ndarray)):
            return Batch._from_arrays([arrays[int(i)] for i in index], b._layout)
        return Tensor._wrap(arrays[index], b._layout)


class _Slicer:
    def __init__(self, batch):
        self._batch = batch

    def __getitem__(self, index):
        b = self._batch
        arrays = b._samples()
        items = index if isinstance(index, tuple) else (index,)
        out = []
        for i, a in enumerate(arrays):
            idx = tuple(_sample_index(item, i) for item in items)
            out.append(_c_contiguous(a[idx if isinstance(index, tuple) else idx[0]]))
        plain = tuple(0 if isinstance(item, Batch) else item for item in items)
        layout = _sliced_layout(b._layout, plain if isinstance(index, tuple) else plain[0], len(b._layout))
        return Batch._from_arrays(out, layout)


def _sample_index(item, i):
    """One subscript for sample `i`: a Batch gives each sample its own integer."""
    if isinstance(item, Batch):
        return int(item._samples()[i])
    return item


def batch(data, dtype=None, device=None, layout=None):
    """A Batch holding copies of `data`'s samples (DALI's ``ndd.batch``)."""
    b = Batch(data, dtype=dtype, device=device, layout=layout)
    b._arrays = [np.array(a, copy=True) for a in b._samples()]
    return b


def as_batch(data, dtype=None, device=None, layout=None):
    """A Batch over `data`'s memory where possible (DALI's ``ndd.as_batch``)."""
    if isinstance(data, Batch) and dtype is None and layout is None:
        return data
    return Batch(data, dtype=dtype, device=device, layout=layout)
