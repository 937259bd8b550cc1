"""Conversions at the pipeline's edges: Python data fed to external sources into sample arrays
(:func:`to_samples`, :func:`to_sample_array`), and a pipeline's output batch into its Python class
(:func:`wrap_batch`: TensorListGPU for GPU data, else TensorListCPU).
"""
import numpy as np

from .gpu import TensorListGPU
from .tensor_list_cpu import TensorListCPU


def _c_contiguous(a):
    """`a` as a C-contiguous array of its own rank (np.ascontiguousarray would make a 0-d array 1-d:
    a scalar sample must stay a scalar, as in DALI)."""
    a = np.asarray(a)
    return a if a.flags.c_contiguous else a.copy(order="C")


def to_sample_array(sample):
    """One sample fed to an external source as a C-contiguous NumPy array (``bytes`` as uint8)."""
    if isinstance(sample, (bytes, bytearray, memoryview)):
        return np.frombuffer(sample, dtype=np.uint8)
    return _c_contiguous(sample)


def to_samples(batch):
    """A batch fed to an external source (an array with a leading sample dimension, or a sequence of
    samples) as a list of sample arrays."""
    if isinstance(batch, np.ndarray):
        if batch.ndim == 0:
            raise ValueError("external_source: a batch must have a leading sample dimension, got a 0-d array")
        return [_c_contiguous(s) for s in batch]  # an (N,) array is N scalar samples
    return [to_sample_array(s) for s in batch]


def wrap_batch(batch, device_id):
    """The Python object for one pipeline output."""
    return TensorListGPU(batch, device_id) if batch.device == "gpu" else TensorListCPU(batch)
