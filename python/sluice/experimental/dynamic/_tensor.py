"""``Tensor``: one sample in dynamic mode (DALI's ``ndd.Tensor``), and ``tensor()`` / ``as_tensor()``.

A Tensor is a host array (NumPy's view of it) and a layout. Made from Python data it shares the
caller's memory when it can (``as_tensor``) or copies it (``tensor``); an operator's result is a
read-only view of the output buffer, which stays alive as long as the Tensor or any view of it
(``np.asarray``, ``torch.from_dlpack``, ``__dlpack__``) does. Arithmetic and comparisons run
Sluice's ``arithmetic.expression`` operator, with DALI's type promotion.
"""
import numpy as np

from ...tensors.conversions import _c_contiguous
from ...tensors.host import _alias
from ...tensors.tensor_cpu import _host_array
from ...types import DALIDataType, to_dali_type, to_numpy_type
from . import _arith


def _as_host_array(data, dtype, what):
    """Python data (an array, a DLPack object such as a torch tensor, a Tensor, nested lists or a
    number) as a C-contiguous NumPy array over the same memory where possible."""
    if isinstance(data, Tensor):
        array = data._array
    elif isinstance(data, np.ndarray):
        array = data  # strided arrays are copied below
    elif isinstance(data, (bool, int, float, list, tuple)):
        array = np.asarray(data)
        if dtype is None:  # DALI's rule for Python data: ints are int32, floats float32
            array = array.astype({"i": np.int32, "f": np.float32, "u": np.uint32}.get(array.dtype.kind, array.dtype),
                                 copy=False)
    else:
        array = _host_array(data, what)
    if dtype is not None:
        array = array.astype(to_numpy_type(_dali_type(dtype)), copy=False)
    return _c_contiguous(array)


def _dali_type(dtype):
    if isinstance(dtype, DALIDataType):
        return dtype
    return to_dali_type(np.dtype(dtype) if isinstance(dtype, type) else dtype)


class _OnHost:
    """DALI's placement and evaluation methods, shared by Tensor and Batch: the data lives on the
    host and every result is computed when its call returns (no lazy evaluation to force)."""

    __slots__ = ()

    def cpu(self):
        return self

    def gpu(self):
        raise NotImplementedError(f"{type(self).__name__}.gpu(): dynamic mode in this version of Sluice keeps "
                                  "data on the host")

    def to_device(self, device):
        _check_device(device)
        return self

    def evaluate(self):
        return self


class Tensor(_OnHost):
    """One sample: ``Tensor(data, dtype=None, device=None, layout=None)`` wraps `data` (NumPy array,
    DLPack object, torch tensor, Tensor, list or number) without copying where possible."""

    __slots__ = ("_array", "_layout")

    def __init__(self, data, dtype=None, device=None, layout=None):
        _check_device(device)
        self._array = _as_host_array(data, dtype, "Tensor")
        self._layout = layout if layout is not None else (data._layout if isinstance(data, Tensor) else "")
        if self._layout and len(self._layout) != self._array.ndim:
            raise ValueError(f"Tensor: the layout {self._layout!r} has {len(self._layout)} dimensions, the data "
                             f"{self._array.ndim}")

    @classmethod
    def _wrap(cls, array, layout):
        t = cls.__new__(cls)
        t._array = array
        t._layout = layout or ""
        return t

    # --- properties ----------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self._array.shape)

    @property
    def dtype(self):
        return to_dali_type(self._array.dtype)

    @property
    def layout(self):
        return self._layout or None

    @property
    def device(self):
        return "cpu"

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def size(self):
        return self._array.size

    @property
    def itemsize(self):
        return self._array.itemsize

    @property
    def nbytes(self):
        return self._array.nbytes

    def item(self):
        """The value of a one-element tensor, as a Python number."""
        return self._array.item()

    # --- conversions ---------------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __dlpack__(self, stream=None, **kwargs):
        return _exportable(self._array).__dlpack__()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    def torch(self, copy=False):
        """A torch tensor over the same memory (``copy=True``: a copy)."""
        return _torch_from_numpy(np.array(self._array) if copy else self._array)

    def __getitem__(self, index):
        """NumPy indexing of the sample; the layout keeps the letters of the dimensions kept by slices."""
        result = self._array[index]
        return Tensor._wrap(_c_contiguous(result), _sliced_layout(self._layout, index, self._array.ndim))

    def __len__(self):
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self._array.shape[0]

    def __repr__(self):
        body = np.array2string(self._array, prefix="    ", threshold=64, edgeitems=2)
        lay = f",\n    layout=\"{self._layout}\"" if self._layout else ""
        return (f"Tensor(\n    {body},\n    dtype={self.dtype.name},\n    device=\"cpu\"{lay},\n"
                f"    shape={self.shape})")

    __str__ = __repr__

    def __bool__(self):
        return bool(self._array)

    def __int__(self):
        return int(self._array)

    def __float__(self):
        return float(self._array)

    def __index__(self):
        return int(self._array)


_arith.install_operators(Tensor)


def _exportable(array):
    """`array`, or for a read-only view (an operator's output) a writable alias of its memory that
    keeps it alive: NumPy exports no read-only array by DLPack, and torch.from_numpy warns on one.
    DALI's results are shared the same way (``torch(copy=False)``)."""
    return array if array.flags.writeable else _alias(array, array)


def _torch_from_numpy(array):
    import torch
    return torch.from_numpy(_exportable(array))


def _sliced_layout(layout, index, ndim):
    if not layout:
        return ""
    items = index if isinstance(index, tuple) else (index,)
    if any(i is None or i is Ellipsis or isinstance(i, np.ndarray) or isinstance(i, list) for i in items):
        return ""
    kept = [layout[d] for d, i in enumerate(items) if isinstance(i, slice)]
    return "".join(kept) + layout[len(items):]


def _check_device(device):
    if device not in (None, "cpu"):
        raise NotImplementedError(f"device={device!r}: dynamic mode in this version of Sluice keeps data on the "
                                  "host ('cpu')")


def tensor(data, dtype=None, device=None, layout=None):
    """A Tensor holding a copy of `data` (DALI's ``ndd.tensor``)."""
    t = Tensor(data, dtype=dtype, device=device, layout=layout)
    t._array = np.array(t._array, copy=True)
    return t


def as_tensor(data, dtype=None, device=None, layout=None, pad=False):
    """A Tensor over `data`'s memory where possible (DALI's ``ndd.as_tensor``); a Batch becomes one
    tensor with a leading batch dimension (samples of different shapes need ``pad=True``: zero-padded
    to the largest extents)."""
    if isinstance(data, Tensor) and dtype is None and layout is None:
        return data
    if hasattr(data, "_as_tensor"):  # a Batch (the _batch module imports this one)
        return data._as_tensor(layout, pad=pad)
    return Tensor(data, dtype=dtype, device=device, layout=layout)
