"""Sluice: a C++ data-loading and augmentation library whose Python API follows NVIDIA DALI's.

Port a DALI pipeline by changing ``nvidia.dali`` to ``sluice``::

    from sluice import pipeline_def, fn, types
    from sluice.plugin.pytorch import DALIClassificationIterator
"""
try:
    from . import _sluice  # noqa: F401  (the C++ core)
except ImportError as e:  # a source checkout without the built module
    raise ImportError("sluice's extension module sluice._sluice is not built: run scripts/python_env.sh, then "
                      "configure with -DSLUICE_BUILD_PYTHON=ON and build the target _sluice") from e
from .errors import ArgumentError, SluiceError
from . import types
from .pipeline import Pipeline, pipeline_def
from .experimental import pipeline_def as _experimental_pipeline_def
from .data_node import DataNode
from .graph import newaxis
from .tensors import TensorCPU, TensorGPU, TensorListCPU, TensorListGPU
from . import fn, ops, tfrecord
from . import math
from .external_source import ExternalSource, external_source
from .device import cuda_available, cuda_built
from . import backend, plugin, plugin_manager, tensors

_experimental_pipeline_def.install()  # sluice.pipeline.experimental.pipeline_def

__version__ = "0.1.0"

__all__ = ["Pipeline", "pipeline_def", "fn", "ops", "types", "DataNode", "TensorCPU", "TensorListCPU", "TensorGPU",
           "TensorListGPU", "SluiceError", "ArgumentError", "ExternalSource", "external_source", "cuda_available",
           "cuda_built", "backend", "plugin", "tensors", "tfrecord"]
