"""PyTorch iterators over Sluice pipelines, as ``nvidia.dali.plugin.pytorch``.

Each step returns a list with one ``{name: torch.Tensor}`` dict per pipeline. Tensors share the
pipeline's output buffers through DLPack (no copy) when a batch is one contiguous block; the
buffers stay alive as long as the tensors do. ``DALIRaggedIterator`` also returns batches whose
samples differ in shape, as lists of tensors or sparse COO tensors; ``feed_ndarray`` copies a
Sluice tensor or batch into a torch tensor; ``to_torch_type`` maps element types.
"""
import ctypes
import os
import sys as _sys
import types as _types

import numpy as np
import torch
import torch.utils.dlpack

from ... import types
from ...tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU
from ..base_iterator import BaseIterator, LastBatchPolicy
from ..torch_function import TorchPythonFunction, torch_python_function

__all__ = ["DALIGenericIterator", "DALIClassificationIterator", "DALIRaggedIterator", "GenericIterator",
           "ClassificationIterator", "LastBatchPolicy", "shard_info", "to_torch", "to_torch_type", "feed_ndarray",
           "TorchPythonFunction", "fn"]

# DALI's table: the torch element type of each DALIDataType torch has.
to_torch_type = {
    types.DALIDataType.FLOAT: torch.float32,
    types.DALIDataType.FLOAT64: torch.float64,
    types.DALIDataType.FLOAT16: torch.float16,
    types.DALIDataType.UINT8: torch.uint8,
    types.DALIDataType.INT8: torch.int8,
    types.DALIDataType.BOOL: torch.bool,
    types.DALIDataType.INT16: torch.int16,
    types.DALIDataType.INT32: torch.int32,
    types.DALIDataType.INT64: torch.int64,
}


def _torch_stream(cuda_stream, device):
    """A torch.cuda stream for DALI's `cuda_stream` argument: a torch stream, or a raw handle (an int,
    a ``ctypes.c_void_p``, an object with ``cuda_stream`` or ``ptr`` such as ``types.CUDAStream``)."""
    if isinstance(cuda_stream, torch.cuda.Stream):
        return cuda_stream
    if isinstance(cuda_stream, ctypes.c_void_p):
        handle = cuda_stream.value
    else:
        handle = getattr(cuda_stream, "cuda_stream", getattr(cuda_stream, "ptr", cuda_stream))
    if isinstance(handle, bool) or not isinstance(handle, int):
        raise TypeError(f"feed_ndarray: cannot interpret {cuda_stream!r} as a CUDA stream")
    return torch.cuda.ExternalStream(handle, device=device)


def feed_ndarray(dali_tensor, arr, cuda_stream=None):
    """Copies a Sluice tensor (TensorCPU/TensorGPU) or dense batch (TensorListCPU/TensorListGPU, as one
    (N, ...) tensor) into the torch tensor `arr`, which must have its element type and shape; returns
    `arr`, as DALI's ``feed_ndarray``.

    Host data goes into a contiguous CPU tensor by one memory copy (``copy_to_external``). Data on the
    GPU is copied on `cuda_stream` (a ``torch.cuda.Stream``, a stream handle or a ``ctypes.c_void_p``):
    with a stream the copy is asynchronous, ordered after the pipeline's work on that stream; without
    one it runs on torch's current stream and the host waits for it. Other combinations (host data
    into a CUDA tensor) are copied by torch.
    """
    if isinstance(dali_tensor, (TensorListCPU, TensorListGPU)):
        if len(dali_tensor) and not dali_tensor.is_dense_tensor():
            raise ValueError(f"feed_ndarray: the batch's samples differ in shape ({dali_tensor.shape()[:4]}...), so it "
                             f"is not one tensor; feed its samples one by one")
        shape = [len(dali_tensor)] + list(dali_tensor.shape()[0] if len(dali_tensor) else [])
    elif isinstance(dali_tensor, (TensorCPU, TensorGPU)):
        shape = dali_tensor.shape()
    else:
        raise TypeError(f"feed_ndarray: expected a TensorCPU, TensorGPU, TensorListCPU or TensorListGPU, got "
                        f"{type(dali_tensor).__name__}")
    torch_type = to_torch_type.get(dali_tensor.dtype)
    if torch_type is None:
        raise TypeError(f"feed_ndarray: torch has no element type for {dali_tensor.dtype}")
    if torch_type != arr.dtype:
        raise TypeError(f"The element type of DALI Tensor/TensorList doesn't match the element type of the target "
                        f"PyTorch Tensor: {torch_type} vs {arr.dtype}")
    if shape != list(arr.size()):
        raise ValueError(f"Shapes do not match: DALI tensor has size {shape}, but PyTorch Tensor has size "
                         f"{list(arr.size())}")
    on_gpu = isinstance(dali_tensor, (TensorGPU, TensorListGPU))
    if not on_gpu and arr.device.type == "cpu":
        if not arr.is_contiguous():
            raise ValueError("feed_ndarray: the target tensor must be contiguous")
        dali_tensor.copy_to_external(ctypes.c_void_p(arr.data_ptr()))
        return arr
    if not on_gpu:
        arr.copy_(torch.utils.dlpack.from_dlpack(dali_tensor.as_tensor()))
        return arr
    device = arr.device if arr.device.type == "cuda" else torch.device("cuda", dali_tensor.device_id())
    stream = torch.cuda.current_stream(device) if cuda_stream is None else _torch_stream(cuda_stream, device)
    src = dali_tensor.as_tensor() if isinstance(dali_tensor, TensorListGPU) else dali_tensor
    with torch.cuda.stream(stream):
        arr.copy_(torch.utils.dlpack.from_dlpack(src.__dlpack__(stream=stream.cuda_stream or 1)),
                  non_blocking=cuda_stream is not None)
    if cuda_stream is None:
        stream.synchronize()
    return arr


def to_torch(tensor_list, pin_memory=False):
    """One batch (TensorListCPU) as one torch.Tensor: zero-copy when possible."""
    tensor = tensor_list.as_tensor()
    try:
        out = torch.utils.dlpack.from_dlpack(tensor)
    except (RuntimeError, TypeError, BufferError):
        # Element types this torch's DLPack import lacks (e.g. bool): one copy.
        out = torch.from_numpy(np.array(tensor.as_array()))
    return out.pin_memory() if pin_memory else out


class DALIGenericIterator(BaseIterator):
    """Iterates pipelines, returning ``[{output_map[i]: torch.Tensor}, ...]`` (one dict per pipeline).

    Arguments as DALI's: ``pipelines`` (one or a list), ``output_map`` (a name per output), ``size``
    or ``reader_name`` (one of them), ``auto_reset``, ``fill_last_batch`` (deprecated),
    ``dynamic_shape`` (accepted; tensors always take each batch's shape), ``last_batch_padded``,
    ``last_batch_policy``, ``prepare_first_batch``. Sluice adds ``pin_memory`` (page-locked output
    tensors, for asynchronous copies to a GPU; needs CUDA in torch).
    """

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False, fill_last_batch=None,
                 dynamic_shape=False, last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL,
                 prepare_first_batch=True, pin_memory=False):
        output_map = list(output_map)
        if len(set(output_map)) != len(output_map):
            raise ValueError(f"output_map names must be distinct, got {output_map}")
        if pin_memory and not torch.cuda.is_available():
            raise RuntimeError("pin_memory=True needs a CUDA-enabled torch; this torch has no CUDA device")
        self.output_map = output_map
        self._dynamic_shape = dynamic_shape
        self._pin_memory = pin_memory
        super().__init__(pipelines, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         fill_last_batch=fill_last_batch, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy, prepare_first_batch=prepare_first_batch)

    def _convert(self, outputs):
        if len(outputs) != len(self.output_map):
            raise ValueError(f"the pipeline has {len(outputs)} outputs but output_map names {len(self.output_map)}: "
                             f"{self.output_map}")
        return {name: to_torch(out, self._pin_memory) for name, out in zip(self.output_map, outputs)}

    def _trim(self, converted, n):
        return {name: t[:n] for name, t in converted.items()}


class DALIClassificationIterator(DALIGenericIterator):
    """DALIGenericIterator for (data, label) pipelines: ``output_map=["data", "label"]``."""

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, fill_last_batch=None,
                 dynamic_shape=False, last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL,
                 prepare_first_batch=True, pin_memory=False):
        super().__init__(pipelines, ["data", "label"], size=size, reader_name=reader_name, auto_reset=auto_reset,
                         fill_last_batch=fill_last_batch, dynamic_shape=dynamic_shape,
                         last_batch_padded=last_batch_padded, last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch, pin_memory=pin_memory)


def _sample_to_torch(tensor):
    """One sample (TensorCPU) as a torch.Tensor: zero-copy when possible."""
    try:
        return torch.utils.dlpack.from_dlpack(tensor)
    except (RuntimeError, TypeError, BufferError):
        return torch.from_numpy(np.array(tensor.as_array()))


def _sparse_coo(samples):
    """DALI's sparse COO form of a batch: indices (sample, position along the sample's first dimension),
    values the samples' elements (rows, for samples of more than one dimension) one after another."""
    if any(t.dim() == 0 for t in samples):
        raise ValueError("SPARSE_COO_TAG: the samples must have at least one dimension")
    indices = [(i, j) for i, t in enumerate(samples) for j in range(t.shape[0])]
    indices = torch.tensor(indices, dtype=torch.long).reshape(-1, 2)
    values = torch.cat(samples) if samples else torch.empty(0)
    return torch.sparse_coo_tensor(indices.T, values)


class DALIRaggedIterator(BaseIterator):
    """Iterates pipelines whose outputs may differ in shape from sample to sample, returning
    ``[{output_map[i]: value}, ...]`` (one dict per pipeline). ``output_types`` tags each output:

    * ``DALIRaggedIterator.DENSE_TAG`` ("dense", the default for all outputs): one torch.Tensor, as
      DALIGenericIterator (the samples must have one shape);
    * ``DALIRaggedIterator.SPARSE_LIST_TAG`` ("sparse_list"): a list of torch.Tensors, one per sample;
    * ``DALIRaggedIterator.SPARSE_COO_TAG`` ("sparse_coo"): a sparse COO torch.Tensor whose element
      (i, j) is element j of sample i (samples of more dimensions give a hybrid tensor whose values are
      the samples' rows).

    The other arguments are DALIGenericIterator's.
    """

    DENSE_TAG: str = "dense"
    SPARSE_LIST_TAG: str = "sparse_list"
    SPARSE_COO_TAG: str = "sparse_coo"

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, output_types=None, auto_reset=False,
                 fill_last_batch=None, dynamic_shape=False, last_batch_padded=False,
                 last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        output_map = list(output_map)
        if len(set(output_map)) != len(output_map):
            raise ValueError(f"output_map names must be distinct, got {output_map}")
        tags = {self.DENSE_TAG, self.SPARSE_LIST_TAG, self.SPARSE_COO_TAG}
        if output_types is not None:
            output_types = list(output_types)
            if not set(output_types) <= tags:
                raise ValueError(f"output_types: only DENSE_TAG, SPARSE_LIST_TAG and SPARSE_COO_TAG are allowed, got "
                                 f"{output_types}")
            if len(output_types) != len(output_map):
                raise ValueError(f"output_types has {len(output_types)} tags but output_map names {len(output_map)} "
                                 f"outputs")
        self.output_map = output_map
        self._outputs_types = output_types
        self._dynamic_shape = dynamic_shape
        super().__init__(pipelines, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         fill_last_batch=fill_last_batch, last_batch_padded=last_batch_padded,
                         last_batch_policy=last_batch_policy, prepare_first_batch=prepare_first_batch)

    def _tag(self, j):
        return self.DENSE_TAG if self._outputs_types is None else self._outputs_types[j]

    def _convert(self, outputs):
        if len(outputs) != len(self.output_map):
            raise ValueError(f"the pipeline has {len(outputs)} outputs but output_map names {len(self.output_map)}: "
                             f"{self.output_map}")
        converted = {}
        for j, (name, out) in enumerate(zip(self.output_map, outputs)):
            if self._tag(j) == self.DENSE_TAG:
                converted[name] = to_torch(out)
            else:  # both sparse forms: a list here; COO is made once the batch is trimmed (_next_batch)
                converted[name] = [_sample_to_torch(t) for t in out]
        return converted

    def _trim(self, converted, n):
        return {name: t[:n] for name, t in converted.items()}

    def _next_batch(self):
        batches = super()._next_batch()
        for batch in batches:
            for j, name in enumerate(self.output_map):
                if self._tag(j) == self.SPARSE_COO_TAG:
                    batch[name] = _sparse_coo(batch[name])
        return batches


GenericIterator = DALIGenericIterator
ClassificationIterator = DALIClassificationIterator


def shard_info():
    """(shard_id, num_shards) for this process: torch.distributed's rank and world size when it is
    initialised, else the RANK and WORLD_SIZE environment variables, else (0, 1)."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    if not 0 <= rank < world:
        raise ValueError(f"RANK={rank} is not in [0, WORLD_SIZE={world})")
    return rank, world


# DALI's operator on torch tensors (plugin/torch_function.py): TorchPythonFunction here, and
# fn.torch_python_function in sluice.plugin.pytorch.fn, a namespace as DALI's plugin.pytorch.fn.
fn = _types.ModuleType(__name__ + ".fn", "The functional API of sluice.plugin.pytorch (DALI's plugin.pytorch.fn).")
fn.torch_python_function = torch_python_function
_sys.modules[fn.__name__] = fn
