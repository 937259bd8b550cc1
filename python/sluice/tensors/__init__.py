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

The modules: ``tensor_cpu`` (TensorCPU, and the reading of Python data as host arrays),
``tensor_list`` (what CPU and GPU batches share), ``tensor_list_cpu`` (TensorListCPU and the batches
made in Python), ``gpu`` (TensorGPU, TensorListGPU), ``conversions`` (Python data to samples for
external sources, pipeline outputs to these classes), and their helpers ``dlpack`` (DLPack capsules
read with ctypes), ``host`` (host memory, element types, layouts) and ``printing`` (DALI's printed
forms). This package re-exports the names the rest of Sluice and its users import from
``sluice.tensors``.
"""
from .conversions import to_sample_array, to_samples, wrap_batch
from .dlpack import dlpack_tensor_of
from .gpu import TensorGPU, TensorListGPU
from .tensor_cpu import TensorCPU
from .tensor_list_cpu import TensorListCPU

__all__ = ["TensorCPU", "TensorListCPU", "TensorGPU", "TensorListGPU", "dlpack_tensor_of", "to_sample_array",
           "to_samples", "wrap_batch"]
