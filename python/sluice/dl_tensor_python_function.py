"""dl_tensor_python_function: a Python callable on DLPack capsules (DALI's ``fn.dl_tensor_python_function``
and ``ops.DLTensorPythonFunction``).

``fn.dl_tensor_python_function(*inputs, function, num_outputs=1, batch_processing=True,
output_layouts=None, synchronize_stream=True)``. As in DALI, the function receives DLPack capsules
(``PyCapsule`` named ``"dltensor"``) and returns them; any framework reads them
(``torch.utils.dlpack.from_dlpack``, ``np.from_dlpack`` on an object exposing the capsule, CuPy...):

* per batch (``batch_processing=True``, DALI's default for this operator, unlike python_function):
  ``function([capsules of input 0], [capsules of input 1], ...)`` once, returning a list of capsules
  (``num_outputs=1``) or a tuple of ``num_outputs`` such lists;
* per sample (``batch_processing=False``): ``function(capsule0, capsule1, ...)`` per sample,
  returning a capsule or a tuple of ``num_outputs`` capsules.

Built on ``python_function`` (the same C++ operator): the capsules wrap the NumPy copies
python_function makes of the samples; the returned capsules are consumed (their producer's memory
is read once, then released when the pipeline's next iteration starts). Differences from DALI:
CPU only (``device="gpu"`` is an error naming ``device``; ``synchronize_stream`` is GPU-only and
ignored); a returned capsule must describe CPU memory; with ``batch_processing=True`` a single
capsule holding the whole batch (leading extent = samples) is accepted as python_function accepts a
dense array (DALI raises); NumPy 1.24's DLPack has no ``bool``, so with that NumPy a ``bool`` input
or output is an error naming it. Errors: a return that is not a capsule (or was already consumed)
names the output and sample; an exception in the function fails ``pipe.run()`` with its traceback.
"""
import ctypes

import numpy as np

from .python_function import (PythonFunction, ReturnError, check_function_and_device, convert_outputs,
                              instance_name, python_function)

_OP = "dl_tensor_python_function"
_KDL_CPU = 1

_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLTensorHead(ctypes.Structure):  # DLPack's DLTensor, up to its device (the first fields)
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice)]


class _Producer:
    """An object with the DLPack protocol around a capsule (NumPy's from_dlpack takes no raw capsule)."""

    def __init__(self, capsule, device):
        self._capsule = capsule
        self._device = device

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return self._device


def is_capsule(value):
    return type(value).__name__ == "PyCapsule"


def capsule_to_array(capsule, where, op=_OP):
    """A returned DLPack capsule -> a NumPy array over its memory (consuming the capsule)."""
    if not is_capsule(capsule):
        raise ReturnError(f"{op}: {where} is a {type(capsule).__name__}, expected a DLPack capsule")
    if not _capsule_valid(capsule, b"dltensor"):
        raise ReturnError(f"{op}: {where} is a DLPack capsule that was already consumed (or is not a "
                          f"'dltensor' capsule); return a new capsule for every output")
    head = _DLTensorHead.from_address(_capsule_pointer(capsule, b"dltensor"))
    device = (head.device.device_type, head.device.device_id)
    if device[0] != _KDL_CPU:
        raise ReturnError(f"{op}: {where} is on DLPack device type {device[0]}; the CPU operator needs CPU "
                          f"memory (device type {_KDL_CPU})")
    try:
        return np.from_dlpack(_Producer(capsule, device))
    except (TypeError, BufferError, RuntimeError) as e:
        raise ReturnError(f"{op}: {where}: NumPy cannot read this DLPack tensor ({e})") from None


def array_to_capsule(array, where, op=_OP):
    """An input sample (a NumPy array python_function made) -> a DLPack capsule over it."""
    try:
        return array.__dlpack__()
    except (TypeError, BufferError, RuntimeError) as e:
        raise ReturnError(f"{op}: {where} of dtype {array.dtype} cannot be passed as DLPack by this NumPy "
                          f"({np.__version__}): {e}") from None


def _convert_batch(value, k, op):
    where = f"output {k}"
    if isinstance(value, (list, tuple)):
        return [capsule_to_array(c, f"sample {i} of {where}", op) for i, c in enumerate(value)]
    return capsule_to_array(value, f"{where} (one capsule for the whole batch)", op)


def wrap_dlpack_function(function, num_outputs, batch_processing, op=_OP):
    """The python_function callable that hands `function` capsules and reads back its capsules."""
    if batch_processing:
        def call_batch(*inputs):
            capsules = [[array_to_capsule(a, f"sample {i} of input {k}", op) for i, a in enumerate(samples)]
                        for k, samples in enumerate(inputs)]
            return convert_outputs(function(*capsules), num_outputs, lambda v, k: _convert_batch(v, k, op))
        return call_batch

    def call_sample(*samples):
        capsules = [array_to_capsule(a, f"input {k}", op) for k, a in enumerate(samples)]
        return convert_outputs(function(*capsules), num_outputs,
                           lambda v, k: capsule_to_array(v, f"output {k}", op))
    return call_sample


def dl_tensor_python_function(*inputs, function=None, num_outputs=1, batch_processing=True, output_layouts=None,
                              synchronize_stream=True, device="cpu", name=None, **kwargs):
    """Runs ``function`` on DLPack capsules of the pipeline's data (see the module's doc). Returns a
    DataNode, or a list of ``num_outputs`` DataNodes."""
    check_function_and_device(_OP, function, device)
    wrapper = wrap_dlpack_function(function, int(num_outputs), bool(batch_processing))
    return python_function(*inputs, function=wrapper, num_outputs=num_outputs, batch_processing=batch_processing,
                           output_layouts=output_layouts, name=name or instance_name(_OP), **kwargs)


class DLTensorPythonFunction(PythonFunction):
    """The object API: ``ops.DLTensorPythonFunction(function=f, num_outputs=2)(images, labels)``."""

    def __init__(self, function=None, num_outputs=1, device="cpu", synchronize_stream=True, batch_processing=True,
                 name=None, **kwargs):
        check_function_and_device(_OP, function, device)
        wrapper = wrap_dlpack_function(function, int(num_outputs), bool(batch_processing))
        super().__init__(function=wrapper, num_outputs=num_outputs, batch_processing=batch_processing,
                         name=name or instance_name(_OP), **kwargs)

    def __repr__(self):
        return "ops.DLTensorPythonFunction(device='cpu')"


dl_tensor_python_function.__doc__ = __doc__
DLTensorPythonFunction.__doc__ = __doc__
