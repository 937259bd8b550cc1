"""TorchPythonFunction: a Python callable on torch tensors (DALI's ``nvidia.dali.plugin.pytorch``'s
``TorchPythonFunction`` and ``fn.torch_python_function``).

``sluice.plugin.pytorch.fn.torch_python_function(*inputs, function, num_outputs=1,
batch_processing=False, output_layouts=None)`` and ``sluice.plugin.pytorch.TorchPythonFunction``
(constructed with the arguments, called with the inputs). As in DALI:

* per sample (``batch_processing=False``, the default): ``function(t0, t1, ...)`` with one CPU
  ``torch.Tensor`` per input, returning a tensor or a tuple of ``num_outputs`` tensors;
* per batch (``batch_processing=True``): ``function([tensors of input 0], ...)`` once, returning a
  list of tensors (``num_outputs=1``) or a tuple of ``num_outputs`` lists.

Built on ``python_function`` (the same C++ operator): the input tensors share the NumPy copies
python_function makes of the samples (``torch.from_numpy``, no further copy; DALI hands them over
by DLPack), and each returned tensor is read through ``Tensor.numpy()`` (no copy unless it is
strided). Outputs keep the tensor's dtype (one per output across the batch) and shape. Differences
from DALI: CPU only (``device="gpu"`` is an error naming ``device``, so there is no CUDA stream to
run on); with ``batch_processing=True`` one tensor holding the whole batch (leading extent =
samples) is accepted, as python_function accepts a dense array. A returned value that is not a CPU
tensor, or a tensor that requires grad, is an error naming the output and sample; an exception in
the function fails ``pipe.run()`` with its traceback.
"""
import torch

from ..python_function import (PythonFunction, ReturnError, check_function_and_device, convert_outputs,
                               instance_name, python_function)

__all__ = ["TorchPythonFunction", "torch_python_function"]

_OP = "torch_python_function"


def _to_array(value, where):
    if not isinstance(value, torch.Tensor):
        raise ReturnError(f"{_OP}: {where} is a {type(value).__name__}, expected a torch.Tensor")
    if value.device.type != "cpu":
        raise ReturnError(f"{_OP}: {where} is on the device '{value.device}'; the CPU operator needs CPU tensors")
    if value.requires_grad:
        raise ReturnError(f"{_OP}: {where} requires grad; return tensor.detach()")
    return value.resolve_conj().resolve_neg().numpy()


def _convert_batch(value, k):
    if isinstance(value, (list, tuple)):
        return [_to_array(t, f"sample {i} of output {k}") for i, t in enumerate(value)]
    return _to_array(value, f"output {k} (one tensor for the whole batch)")


def _wrap(function, num_outputs, batch_processing):
    if batch_processing:
        def call_batch(*inputs):
            tensors = [[torch.from_numpy(a) for a in samples] for samples in inputs]
            return convert_outputs(function(*tensors), num_outputs, _convert_batch)
        return call_batch

    def call_sample(*samples):
        return convert_outputs(function(*(torch.from_numpy(a) for a in samples)), num_outputs,
                           lambda v, k: _to_array(v, f"output {k}"))
    return call_sample


def torch_python_function(*inputs, function=None, num_outputs=1, batch_processing=False, output_layouts=None,
                          device="cpu", name=None, **kwargs):
    """Runs ``function`` on torch tensors of the pipeline's data (see the module's doc). Returns a
    DataNode, or a list of ``num_outputs`` DataNodes."""
    check_function_and_device(_OP, function, device)
    wrapper = _wrap(function, int(num_outputs), bool(batch_processing))
    return python_function(*inputs, function=wrapper, num_outputs=num_outputs, batch_processing=batch_processing,
                           output_layouts=output_layouts, name=name or instance_name(_OP), **kwargs)


class TorchPythonFunction(PythonFunction):
    """The object API: ``TorchPythonFunction(function=f, num_outputs=2)(images, labels)``."""

    def __init__(self, function=None, num_outputs=1, device="cpu", batch_processing=False, name=None, **kwargs):
        check_function_and_device(_OP, function, device)
        wrapper = _wrap(function, int(num_outputs), bool(batch_processing))
        super().__init__(function=wrapper, num_outputs=num_outputs, batch_processing=batch_processing,
                         name=name or instance_name(_OP), **kwargs)

    def __repr__(self):
        return "TorchPythonFunction(device='cpu')"


torch_python_function.__doc__ = __doc__
TorchPythonFunction.__doc__ = __doc__
