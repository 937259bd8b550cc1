"""Dynamic mode (DALI's ``nvidia.dali.experimental.dynamic``): Sluice's operators called eagerly on
tensors and batches, readers as objects. Import it as DALI's examples do::

    import sluice.experimental.dynamic as ndd

    reader = ndd.readers.File(file_root=image_dir, random_shuffle=True)
    for jpegs, labels in reader.next_epoch(batch_size=8):
        images = ndd.decoders.image(jpegs)                    # a Batch of 8 HWC uint8 images
        images = ndd.resize(images, size=[224, 224])
        flip = ndd.random.coin_flip(batch_size=8)             # a Batch of 8 random 0/1
        images = ndd.flip(images, horizontal=flip)            # a per-sample argument
        x = images.torch()                                    # (8, 224, 224, 3) uint8, no copy

* ``Tensor`` (one sample) and ``Batch`` (samples of one dtype and rank, shapes free): ``ndd.tensor``
  / ``ndd.batch`` copy Python data (NumPy arrays, torch tensors, DLPack objects, lists),
  ``ndd.as_tensor`` / ``ndd.as_batch`` wrap it. Results are host arrays: ``np.asarray``,
  ``torch.from_dlpack`` / ``.torch()``, ``__dlpack__``.
* Every registered operator is a function under its ``fn`` name (``ndd.decoders.image``,
  ``ndd.crop_mirror_normalize``, ``ndd.random.uniform``, ...) taking Tensors or Batches (see
  ``_ops`` for the rules), plus ``batch_size`` for operators without inputs and ``rng`` for random
  ones (see ``ndd.random``). Arithmetic on Tensors and Batches and ``ndd.math`` run Sluice's
  expression operator, with DALI's type promotion.
* Readers are classes under ``ndd.readers`` (``File``, ``COCO``, ``Numpy``, ``Webdataset``, ...)
  with ``next_epoch(batch_size=...)`` (see ``_readers``).
* Calls run synchronously on the calling thread (every ``EvalMode`` behaves as DALI's
  ``sync_full``); a batch call runs its samples on a pool of ``get_num_threads()`` workers
  (``set_num_threads``; default: ``DALI_NUM_THREADS``, else the CPUs available to the process).
  Each call is one run of a cached, built single-operator graph (``_engine``): tens of
  microseconds of overhead per call.

Where Sluice differs from DALI here: data stays on the host (``device="gpu"`` and ``.gpu()`` raise);
dtypes are ``sluice.types.DALIDataType`` values (``ndd.uint8 is types.UINT8``); capture mode,
``EvalContext``, streams and devices are not implemented.
"""
import sys as _sys

from ... import math as _math
from ... import namespaces as _ns
from ... import types as _types
from ...schema import all_schemas as _all_schemas
from . import random  # noqa: F401  (the module random operators are added to)
from ._batch import Batch, as_batch, batch
from ._engine import get_num_threads, set_num_threads
from ._eval_mode import EvalMode
from ._ops import call_expression as _call_expression, make_function as _make_function
from ._readers import Reader, make_reader_class as _make_reader_class
from ._tensor import Tensor, as_tensor, tensor

# The operators dynamic mode has no function for: external sources (data is passed directly) and
# python_function (call the Python function instead).
_NOT_FUNCTIONS = {"external_source", "python_function", "experimental.inputs.video"}

DType = _types.DALIDataType
bool = _types.BOOL  # noqa: A001 (DALI's name)
int8, int16, int32, int64 = _types.INT8, _types.INT16, _types.INT32, _types.INT64
uint8, uint16, uint32, uint64 = _types.UINT8, _types.UINT16, _types.UINT32, _types.UINT64
float16, float32, float64 = _types.FLOAT16, _types.FLOAT, _types.FLOAT64
ImageType, InterpType = _types.DALIImageType, _types.DALIInterpType


def _generate(root):
    for name, schema in _all_schemas().items():
        if name in _NOT_FUNCTIONS:
            continue
        path, leaf = _ns.split_name(name)
        if schema.is_reader:
            if name == "readers.tfrecord":
                continue  # takes a dict of feature descriptions: not a plain argument list yet
            module = _ns.submodule(root, path)
            cls_name = _ns.ops_class_name(leaf)
            setattr(module, cls_name, _make_reader_class(schema, cls_name, module.__name__))
            continue
        module = _ns.submodule(root, path)
        setattr(module, leaf, _make_function(schema, leaf, module.__name__))


def _math_function(name, func):
    def math_function(*operands):
        return _call_expression(name, func, operands)

    math_function.__name__ = math_function.__qualname__ = name
    math_function.__doc__ = func.__doc__
    return math_function


def _install_math(root):
    module = _ns.submodule(root, "math")
    for name in _math.__all__:
        setattr(module, name, _math_function(name, getattr(_math, name)))


_generate(_sys.modules[__name__])
_install_math(_sys.modules[__name__])

__all__ = ["Tensor", "Batch", "EvalMode", "tensor", "as_tensor", "batch", "as_batch", "Reader", "random", "readers",
           "math",
           "get_num_threads", "set_num_threads", "DType", "ImageType", "InterpType", "bool", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]
