"""Pipeline outputs (TensorListCPU/TensorCPU, TensorListGPU/TensorGPU), and the conversions of
Python data into samples for external sources (:func:`to_samples`).

Both hand their data over without copying: ``__dlpack__``/``__dlpack_device__`` (for
``torch.utils.dlpack.from_dlpack``, ``np.from_dlpack``, JAX) and ``__array_interface__`` (for
``np.asarray``). The exported views keep the pipeline's output buffers alive while referenced.
Views are read-only for NumPy. ``as_tensor()`` of a batch is one (N, ...) tensor: a view when the
batch is one contiguous buffer, else a copy; a batch whose samples differ in shape cannot be one.
"""
import numpy as np

from .types import dtype_from_name

_DLPACK_CPU = (1, 0)


class TensorCPU:
    """One tensor: a sample of a batch, or a whole dense batch from ``TensorListCPU.as_tensor()``."""

    def __init__(self, view, layout="", source=None):
        # `view`: a nanobind ndarray (zero-copy, owns a reference to the batch) or a NumPy array.
        self._view = view
        self._array = np.asarray(view)
        self._layout = layout
        self._source = source

    def shape(self):
        return list(self._array.shape)

    @property
    def dtype(self):
        return dtype_from_name(self._array.dtype.name)

    def layout(self):
        return self._layout

    def source_info(self):
        """Where the sample came from (a file path, or archive:member @offset); "" if unknown."""
        return str(self._source) if self._source is not None else ""

    def as_array(self):
        """A NumPy array (a read-only view for pipeline outputs)."""
        return self._array

    def as_tensor(self):
        return self

    def nbytes(self):
        return self._array.nbytes

    def __len__(self):
        return len(self._array)

    @property
    def __array_interface__(self):
        return self._array.__array_interface__

    def __array__(self, dtype=None):
        return self._array if dtype is None else self._array.astype(dtype)

    def __dlpack__(self, stream=None, **kwargs):
        if isinstance(self._view, np.ndarray):
            return self._view.__dlpack__(stream=stream) if stream is not None else self._view.__dlpack__()
        return self._view.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return _DLPACK_CPU

    def __repr__(self):
        return f"TensorCPU(shape={tuple(self._array.shape)}, dtype={self._array.dtype}, layout={self._layout!r})"


class _TensorList:
    """What CPU and GPU batches share: the batch's metadata."""

    def __len__(self):
        return self._batch.num_samples

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def shape(self):
        return [tuple(s) for s in self._batch.shapes()]

    @property
    def dtype(self):
        return dtype_from_name(self._batch.dtype)

    def layout(self):
        return self._batch.layout

    def source_info(self, i):
        """Where sample i came from (a file path, or archive:member @offset); "" if unknown."""
        return str(self._batch.source(i if i >= 0 else i + len(self)))

    def is_dense_tensor(self):
        """True if every sample has the same shape, so that the batch can be one tensor."""
        return self._batch.is_dense()


class TensorListCPU(_TensorList):
    """A batch of samples of one dtype and layout; the samples may differ in shape."""

    def __init__(self, batch):
        self._batch = batch  # sluice._sluice.Batch
        self._tensor = None  # as_tensor(), made once (the batch is immutable)

    def __getitem__(self, i):
        if i < 0:
            i += len(self)
        return TensorCPU(self._batch.sample(i), self._batch.layout, self._batch.source(i))

    def at(self, i):
        """Sample i as a NumPy array (a read-only view)."""
        return self[i].as_array()

    def is_single_tensor(self):
        """True if the batch is already one (N, ...) tensor in memory (as_tensor() does not copy)."""
        return self._batch.is_single_tensor()

    def as_tensor(self):
        """The batch as one (N, ...) TensorCPU: zero-copy when possible, else one copy.

        Raises ValueError if the samples differ in shape."""
        if self._tensor is None:
            self._tensor = self._make_tensor()
        return self._tensor

    def _make_tensor(self):
        if self._batch.num_samples and self._batch.is_single_tensor():
            return TensorCPU(self._batch.single_tensor(), self._batch.layout)
        if not self._batch.is_dense() and self._batch.num_samples:
            shapes = ", ".join(str(tuple(s)) for s in self._batch.shapes()[:8])
            more = " ..." if self._batch.num_samples > 8 else ""
            raise ValueError(f"the batch is not dense (its samples differ in shape: {shapes}{more}), so it cannot "
                             f"be one tensor; use at(i) for each sample, or resize/crop to one shape")
        if self._batch.num_samples == 0:
            return TensorCPU(np.zeros((0,), dtype=self._batch.dtype), self._batch.layout)
        return TensorCPU(np.stack([np.asarray(self._batch.sample(i)) for i in range(len(self))]),
                         self._batch.layout)

    def as_cpu(self):
        """This batch (already in host memory); for code written for GPU and CPU outputs alike."""
        return self

    def as_array(self):
        """The batch as one NumPy array (see as_tensor())."""
        return self.as_tensor().as_array()

    @property
    def __array_interface__(self):
        return self.as_tensor().__array_interface__

    def __array__(self, dtype=None):
        return self.as_tensor().__array__(dtype)

    def __dlpack__(self, stream=None, **kwargs):
        return self.as_tensor().__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return _DLPACK_CPU

    def __repr__(self):
        return f"TensorListCPU(num_samples={len(self)}, dtype={self._batch.dtype}, layout={self._batch.layout!r})"


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

    def layout(self):
        return self._layout

    def source_info(self):
        return str(self._source) if self._source is not None else ""

    def as_tensor(self):
        return self

    def as_cpu(self):
        """A host copy (TensorCPU) of this tensor, as DALI's TensorGPU.as_cpu(); waits for the data."""
        host = TensorListCPU(self._batch.to_host())
        return host.as_tensor() if self._index is None else host[self._index]

    def synchronize(self):
        """Blocks until the data is complete (then any stream, or a host copy, may read it)."""
        self._batch.synchronize()

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
        return (2, self._device_id)  # kDLCUDA

    def __repr__(self):
        return f"TensorGPU(shape={tuple(self._shape)}, device_id={self._device_id})"


class TensorListGPU(_TensorList):
    """A batch in GPU memory. ``__dlpack__`` (e.g. ``torch.utils.dlpack.from_dlpack``) shares it
    without a copy, ordered on the consumer's stream (see TensorGPU); NumPy access needs a
    framework's copy to the host first."""

    def __init__(self, batch, device_id):
        self._batch = batch
        self._device_id = device_id

    def __getitem__(self, i):
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"sample index {i} out of range for a batch of {len(self)}")
        return TensorGPU(self._batch, i, self._batch.shape(i), self._batch.layout, self._batch.source(i),
                         self._device_id)

    def as_tensor(self):
        """The batch as one (N, ...) TensorGPU, without a copy; the batch must be one contiguous block."""
        if not self._batch.is_single_tensor():
            raise ValueError(f"this GPU batch is not one contiguous tensor (sample shapes: "
                             f"{', '.join(str(tuple(s)) for s in self._batch.shapes()[:8])}); take its samples "
                             f"one by one")
        shape = [len(self)] + list(self._batch.shape(0))
        return TensorGPU(self._batch, None, shape, self._batch.layout, device_id=self._device_id)

    def synchronize(self):
        """Blocks until the batch is complete (then any stream, or a host copy, may read it)."""
        self._batch.synchronize()

    def as_cpu(self):
        """A host copy of the batch (TensorListCPU: same shapes, layout and sources), as DALI's
        TensorListGPU.as_cpu(); waits for the batch."""
        return TensorListCPU(self._batch.to_host())

    def as_array(self):
        raise TypeError("GPU data has no NumPy view: use torch.utils.dlpack.from_dlpack(batch).cpu() or similar")

    def __dlpack__(self, stream=None, **kwargs):
        return self.as_tensor().__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self):
        return (2, self._device_id)

    def __repr__(self):
        return f"TensorListGPU(num_samples={len(self)}, dtype={self._batch.dtype}, device_id={self._device_id})"


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
