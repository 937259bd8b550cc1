"""python_function: a Python callable as a pipeline operator (DALI's ``fn.python_function``).

``fn.python_function(*inputs, function, num_outputs=1, batch_processing=False, output_layouts=None)``
and ``ops.PythonFunction``. The C++ operator (``python/src/python_function_op.cc``) runs it on the
CPU in the executor's threads, taking the GIL only around the call:

* per sample (``batch_processing=False``): ``function(in0[i], in1[i], ...)`` for every sample, in
  sample order, returning an array (``num_outputs=1``) or a tuple of ``num_outputs`` arrays;
* per batch (``batch_processing=True``): ``function([in0 samples], [in1 samples], ...)`` once,
  returning a list of arrays (``num_outputs=1``) or a tuple of ``num_outputs`` such lists.

Inputs are NumPy arrays holding a copy of the samples. Outputs keep their dtype and shape (one
dtype per output across the batch); ``output_layouts`` (a string, or one per output; a shorter
list leaves the last outputs without a layout) sets their layouts. An exception in the function
fails ``pipe.run()`` with a SluiceError naming the operator and holding the function's
traceback; a wrong return (count, type, dtype, batch length) is a SluiceError saying what was
expected. The function must not hold a reference to its pipeline (as in DALI).

The operator is never pruned from the graph (DALI: "will not be optimized out"), and a pipeline
with one cannot be checkpointed (the function's state is Python's; DALI does not support it
either): with ``enable_checkpointing=True`` the first ``run()`` raises saying so.

DALI's other Python-function operators are wrappers over this one (``convert_outputs`` and
``instance_name`` below are theirs): ``dl_tensor_python_function`` (DLPack capsules), and the
plugins ``plugin.pytorch.fn.torch_python_function``, ``plugin.numba.fn.experimental.numba_function``
and ``plugin.jax.fn.jax_function``.
"""
import inspect
import itertools
import weakref

import numpy as np

from . import _sluice
from .errors import ArgumentError
from .graph import check_arguments, make_call

# NumPy dtypes Sluice has a type for (the executor's DType); anything else is rejected by name.
_SUPPORTED = {np.dtype(t) for t in ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32",
                                    "int64", "float16", "float32", "float64")}
_ids = itertools.count()


class _FunctionKey:
    """The registration of one callable in the extension's function table. It lives as long as the
    operator call that names it (the C++ operator takes its own reference when the pipeline is built)."""

    def __init__(self, function):
        self.key = f"python_function:{next(_ids)}:{getattr(function, '__qualname__', type(function).__name__)}"
        _sluice.register_python_function(self.key, function)
        weakref.finalize(self, _sluice.unregister_python_function, self.key)


def instance_name(op):
    """A default instance name for an operator written on python_function (the DLPack, PyTorch, Numba
    and JAX functions), so that its errors read "[numba_function_3] ..." rather than python_function's."""
    return f"{op}_{next(_ids)}"


def _layouts(output_layouts, num_outputs):
    if output_layouts is None:
        return []
    if isinstance(output_layouts, str):
        return [output_layouts] * max(num_outputs, 1)
    if isinstance(output_layouts, (list, tuple)) and all(isinstance(x, str) for x in output_layouts):
        return list(output_layouts)
    raise ArgumentError(f"python_function: output_layouts must be a layout string or a list of them, got "
                        f"{output_layouts!r}", op="python_function", argument="output_layouts")


def python_function(*inputs, function=None, num_outputs=1, batch_processing=False, output_layouts=None,
                    device="cpu", name=None, **kwargs):
    """Runs ``function`` on the pipeline's data (see the module's doc). Returns a DataNode, or a
    list of ``num_outputs`` DataNodes (an empty list for ``num_outputs=0``). Its ``__doc__`` and
    signature become the schema's (as for the generated operators) below."""
    _check_call(function, device, name, kwargs)
    kwargs.pop("preserve", None)  # always kept in the graph, as DALI's python_function
    key = _FunctionKey(function)
    args = dict(kwargs, function=key.key, num_outputs=num_outputs, batch_processing=batch_processing,
                output_layouts=_layouts(output_layouts, int(num_outputs)), preserve=True)
    call = make_call("python_function", list(inputs), args, device="cpu", name=name)
    call.python_function_key = key
    if call.pipeline is not None:
        call.pipeline._record_call(call)
    outputs = call.outputs
    return outputs[0] if len(outputs) == 1 else outputs


def check_function_and_device(op, function, device):
    """The checks every Python-function operator (python_function and the plugins built on it) makes
    at the call: a CPU device and a callable, errors naming `op` and the argument."""
    if device not in (None, "cpu"):
        raise ArgumentError(f"{op}: only device='cpu' is supported, got {device!r}", op=op, argument="device")
    if not callable(function):
        raise ArgumentError(f"{op}: `function` must be callable, got {type(function).__name__}",
                            op=op, argument="function")


def _check_call(function, device, name, kwargs):
    # Unknown or invalid arguments first (the C++ validation's errors, as for every operator).
    check_arguments("python_function", "cpu", name, {k: v for k, v in kwargs.items() if k != "preserve"})
    check_function_and_device("python_function", function, device)


class PythonFunction:
    """The object API: ``ops.PythonFunction(function=f, num_outputs=2)(images, labels)``."""

    def __init__(self, *, function=None, device="cpu", name=None, **kwargs):
        checked = dict(kwargs)
        if "output_layouts" in checked:
            checked["output_layouts"] = _layouts(checked["output_layouts"], int(checked.get("num_outputs", 1)))
        _check_call(function, device, name, checked)
        self._kwargs = dict(kwargs, function=function, device=device)
        self._name = name
        self._calls = 0

    def __call__(self, *inputs, name=None, **kwargs):
        if "device" in kwargs:
            raise TypeError("PythonFunction: give `device` when constructing the operator, not when calling it")
        name = name or self._name
        name = name if not (name and self._calls) else f"{name}_{self._calls}"
        self._calls += 1
        return python_function(*inputs, name=name, **{**self._kwargs, **kwargs})

    def __repr__(self):
        return "ops.PythonFunction(device='cpu')"


def _take_schema_signatures():
    """fn.python_function and ops.PythonFunction show the schema's docs and arguments, as the
    generated operators do (help(), IDEs, and the tests that hold every operator to its schema)."""
    from . import namespaces
    from .schema import get_schema
    try:
        schema = get_schema("python_function")
    except Exception:  # noqa: BLE001 (an extension built without it)
        return
    python_function.__doc__ = schema.doc
    python_function.__signature__ = inspect.Signature(
        namespaces.input_parameters(schema) + namespaces.keyword_parameters(schema))
    PythonFunction.__doc__ = schema.doc
    PythonFunction.__init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)] + namespaces.keyword_parameters(schema))
    PythonFunction.__init__.__doc__ = schema.doc


# --- called by the C++ operator, with the GIL held ---------------------------------------------

class ReturnError(TypeError):
    """The function returned something python_function cannot use (the C++ operator reports it
    without a traceback: the message says what was expected)."""


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    return f"a {type(value).__name__}"


def _as_array(value, where):
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if not isinstance(value, np.ndarray):
        raise ReturnError(f"{where} is {_describe(value)}, expected a NumPy array")
    dt = value.dtype
    if not dt.isnative:
        value = value.astype(dt.newbyteorder("="))
        dt = value.dtype
    if dt not in _SUPPORTED:
        raise ReturnError(f"{where} has dtype {dt}, which Sluice has no type for (use bool, uint8, uint16, uint32, "
                          f"uint64, int8, int16, int32, int64, float16, float32 or float64)")
    return value if value.flags.c_contiguous else value.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)


def convert_outputs(result, num_outputs, convert):
    """For the wrappers built on python_function: applies `convert(value, k)` to each output of a
    function's result, keeping its shape (None, one value, or a tuple/list of num_outputs values).
    A result of another shape is returned as it is: _invoke then says what it expected."""
    if result is None or num_outputs == 0:
        return result
    if num_outputs == 1:
        if isinstance(result, tuple) and len(result) == 1:
            return (convert(result[0], 0),)
        return convert(result, 0)
    if isinstance(result, (tuple, list)) and len(result) == num_outputs:
        return tuple(convert(v, k) for k, v in enumerate(result))
    return result


def _split_outputs(result, num_outputs, what):
    """The function's result -> a list of `num_outputs` values."""
    if num_outputs == 0:
        if result is not None:
            raise ReturnError(f"{what} returned {_describe(result)}; with num_outputs=0 it must return None")
        return []
    if num_outputs == 1:
        if isinstance(result, tuple) and len(result) == 1:
            return [result[0]]
        return [result]
    if not isinstance(result, (tuple, list)):
        raise ReturnError(f"{what} returned {_describe(result)}, expected a tuple of num_outputs={num_outputs} outputs")
    if len(result) != num_outputs:
        raise ReturnError(f"{what} returned {len(result)} outputs, expected num_outputs={num_outputs}")
    return list(result)


def _invoke(function, inputs, batch_size, num_outputs, batch_processing):
    """Runs `function` over one batch. `inputs`: one list of sample arrays per input. Returns one
    list of C-contiguous arrays (of a supported dtype, one dtype per output) per output."""
    outputs = [[] for _ in range(num_outputs)]
    if batch_processing:
        result = function(*inputs)
        for k, out in enumerate(_split_outputs(result, num_outputs, "the function")):
            where = f"output {k}" if num_outputs > 1 else "the result"
            if isinstance(out, np.ndarray) and out.ndim >= 1:
                out = list(out)  # a dense batch: one sample per row
            elif not isinstance(out, (list, tuple)):
                raise ReturnError(f"{where} of the function is {_describe(out)}, expected a list of "
                                  f"{batch_size} arrays (one per sample) with batch_processing=True")
            if len(out) != batch_size:
                raise ReturnError(f"{where} of the function has {len(out)} samples, the batch has {batch_size}")
            outputs[k] = [_as_array(s, f"sample {i} of {where}") for i, s in enumerate(out)]
    else:
        for i in range(batch_size):
            result = function(*(samples[i] for samples in inputs))
            for k, out in enumerate(_split_outputs(result, num_outputs, f"the function (sample {i})")):
                where = f"output {k} of sample {i}" if num_outputs > 1 else f"the result for sample {i}"
                outputs[k].append(_as_array(out, where))
    for k, samples in enumerate(outputs):
        dtypes = {a.dtype for a in samples}
        if len(dtypes) > 1:
            first = samples[0].dtype
            i = next(i for i, a in enumerate(samples) if a.dtype != first)
            raise ReturnError(f"output {k}: sample {i} has dtype {samples[i].dtype}, sample 0 has {first}; "
                              f"the samples of an output must have one dtype")
    return outputs


_take_schema_signatures()
