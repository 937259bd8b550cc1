"""PyTorch iterators over Sluice pipelines, as ``nvidia.dali.plugin.pytorch``.

Each step returns a list with one ``{name: torch.Tensor}`` dict per pipeline. Tensors share the
pipeline's output buffers through DLPack (no copy) when a batch is one contiguous block; the
buffers stay alive as long as the tensors do.
"""
import os
import sys as _sys
import types as _types

import numpy as np
import torch
import torch.utils.dlpack

from .base_iterator import BaseIterator, LastBatchPolicy
from .torch_function import TorchPythonFunction, torch_python_function

__all__ = ["DALIGenericIterator", "DALIClassificationIterator", "GenericIterator", "ClassificationIterator",
           "LastBatchPolicy", "shard_info", "to_torch", "TorchPythonFunction", "fn"]


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
