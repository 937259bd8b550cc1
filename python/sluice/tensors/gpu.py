"""TensorGPU and TensorListGPU: pipeline outputs in GPU memory, handed over by DLPack.

They are handed out as soon as their work is queued on the pipeline's CUDA stream;
``__dlpack__(stream=s)`` orders the consumer's stream after it (see TensorGPU). ``as_cpu()`` copies
to the host (a TensorCPU/TensorListCPU); there is no NumPy view of GPU data and no copy into a raw
device pointer.
"""
from ..types import dtype_from_name
from .dlpack import _KDLCUDA, dlpack_tensor_of
from .host import _check_layout
from .printing import _tensor_to_string
from .tensor_list import _TensorList
from .tensor_list_cpu import TensorListCPU


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
