"""NumbaFunction: a Numba-compiled function as a pipeline operator (DALI's ``nvidia.dali.plugin.numba``).

The spellings DALI 2.4 has: ``sluice.plugin.numba.fn.experimental.numba_function``,
``sluice.plugin.numba.fn.numba_function``, and the object API ``sluice.plugin.numba.NumbaFunction``
(also ``sluice.plugin.numba.experimental.NumbaFunction``)::

    numba_function(*inputs, run_fn, out_types, in_types, outs_ndim, ins_ndim, setup_fn=None,
                   batch_processing=False, blocks=None, threads_per_block=None)

As in DALI:

* ``run_fn(out0, ..., in0, ...)`` is compiled with ``numba.njit`` in nopython mode when the
  operator is made (a function that does not compile is an error there, naming ``run_fn``), for
  C-contiguous arrays of ``out_types``/``in_types`` (``sluice.types`` values, one per output and
  input, as many as ``outs_ndim``/``ins_ndim``, at most 6 each) with ``outs_ndim``/``ins_ndim``
  dimensions. Per sample (``batch_processing=False``) it gets one array per output and input and
  fills the outputs in place; per batch (``batch_processing=True``) it gets one list of arrays
  (a ``numba.typed.List``, one array per sample) per output and input.
* ``setup_fn(outs, ins)`` (optional, compiled the same way) runs once per batch before ``run_fn``
  and writes the output shapes: ``outs[k][i]`` is the shape (an int64 array of ``outs_ndim[k]``
  values) of output k's sample i, ``ins[k][i]`` input k's. A negative extent is an error naming
  ``setup_fn``. Without ``setup_fn`` output k takes input k's shape and type, so there must be as
  many outputs as inputs.
* Each batch's inputs are checked against ``in_types``/``ins_ndim`` before ``run_fn`` runs: a
  mismatch is an error naming the argument and the index.

Built on ``python_function`` (the same C++ operator: the inputs are NumPy copies of the samples, the
outputs NumPy arrays Sluice allocates and ``run_fn`` fills). Differences from DALI: CPU only
(``device="gpu"`` is an error naming ``device``); ``blocks`` and ``threads_per_block`` are DALI's
CUDA launch grid, accepted and ignored on the CPU as DALI ignores them there; per-sample calls run
one after another in the calling thread (DALI spreads samples over its thread pool; ``run_fn`` is
compiled with ``nogil=True`` so other pipeline work proceeds meanwhile); outputs start zeroed
(DALI's are uninitialised); without ``setup_fn`` an ``out_types``/``outs_ndim`` entry that differs
from the input's is an error (DALI would write the input-typed buffer through the other type); DALI's
setup function sees its inputs' shapes through the output count (a DALI bug when they differ), here
through the input count; ``float16`` is rejected as DALI rejects it. An exception raised in ``run_fn`` fails ``pipe.run()`` with its
traceback.
"""
import sys as _sys
import types as _types

import numba as _nb
import numpy as np
from numba import typed as _typed
from numba import types as _nbt

from .. import types as _dtypes
from ..errors import ArgumentError
from ..python_function import _SUPPORTED, ReturnError, instance_name, python_function

__all__ = ["NumbaFunction", "fn", "experimental"]

_OP = "numba_function"
_MAX_IO = 6
_SHAPE = _nbt.Array(_nbt.int64, 1, "C")


def _error(message, argument):
    return ArgumentError(f"{_OP}: {message}", op=_OP, argument=argument)


def _as_list(value, argument):
    if isinstance(value, (list, tuple)):
        return list(value)
    if value is None:
        raise _error(f"`{argument}` is required", argument)
    return [value]


def _dtypes_of(values, argument):
    """`out_types`/`in_types` -> NumPy dtypes, rejecting what Numba or Sluice cannot hold."""
    out = []
    for i, v in enumerate(values):
        try:
            t = _dtypes.DALIDataType(v)
        except (ValueError, TypeError):
            raise _error(f"`{argument}` at index {i} is {v!r}, not a sluice.types data type", argument) from None
        if t == _dtypes.FLOAT16:
            raise _error(f"`{argument}` at index {i} is FLOAT16: Numba does not support float16 (as in DALI)",
                         argument)
        try:
            dt = t.to_numpy()
        except TypeError:  # NO_TYPE and the non-numeric types
            dt = None
        if dt not in _SUPPORTED:
            raise _error(f"`{argument}` at index {i} is {t.name}, which Sluice has no tensors of", argument)
        out.append(dt)
    return out


def _ndims_of(values, argument):
    for i, n in enumerate(values):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise _error(f"All dimensions should be non negative. Value specified in `{argument}` at index {i} "
                         f"is {n!r}", argument)
    return [int(n) for n in values]


def _array_type(dtype, ndim):
    return _nbt.Array(_nb.from_dtype(dtype), ndim, "C")


def _plain(function):
    """A numba dispatcher's Python function (DALI's njit(run_fn) takes either)."""
    return getattr(function, "py_func", function)


def _compile(function, argument, signature):
    if not callable(function):
        raise _error(f"`{argument}` must be a function, got {type(function).__name__}", argument)
    try:
        return _nb.njit(signature, nogil=True)(_plain(function))
    except Exception as e:  # noqa: BLE001 (Numba's typing and lowering errors, reported with the argument)
        raise _error(f"`{argument}` does not compile in Numba's nopython mode for {signature}:\n{e}",
                     argument) from e


@_nb.njit(nogil=True)
def _rows(shapes):
    """A typed list of the rows of a (samples x ndim) int64 array: views, so writes reach `shapes`."""
    out = _typed.List.empty_list(_SHAPE)
    for i in range(shapes.shape[0]):
        out.append(shapes[i])
    return out


def _shape_lists(tables):
    outer = _typed.List.empty_list(_nbt.ListType(_SHAPE))
    for table in tables:
        outer.append(_rows(table))
    return outer


def _sample_list(arrays, item_type):
    out = _typed.List.empty_list(item_type)
    for a in arrays:
        out.append(a)
    return out


class NumbaFunction:
    """The object API: ``NumbaFunction(run_fn=f, out_types=[...], in_types=[...], outs_ndim=[...],
    ins_ndim=[...])(images)`` (see the module's doc)."""

    def __init__(self, run_fn=None, out_types=None, in_types=None, outs_ndim=None, ins_ndim=None, setup_fn=None,
                 device="cpu", batch_processing=False, blocks=None, threads_per_block=None, name=None, **kwargs):
        if device not in (None, "cpu"):
            raise _error(f"only device='cpu' is supported (Sluice runs run_fn on the CPU), got {device!r}", "device")
        out_types, in_types = _as_list(out_types, "out_types"), _as_list(in_types, "in_types")
        outs_ndim, ins_ndim = _as_list(outs_ndim, "outs_ndim"), _as_list(ins_ndim, "ins_ndim")
        if len(out_types) > _MAX_IO:
            raise _error(f"Trying to specify {len(out_types)} outputs. This operator can have at most 6 outputs.",
                         "out_types")
        if len(in_types) > _MAX_IO:
            raise _error(f"Trying to specify {len(in_types)} inputs. This operator can have at most 6 inputs.",
                         "in_types")
        if not in_types:
            raise _error("`in_types` is empty: the operator takes 1 to 6 inputs", "in_types")
        if len(outs_ndim) != len(out_types):
            raise _error(f"Size of `outs_ndim` ({len(outs_ndim)}) should match size of `out_types` "
                         f"({len(out_types)}).", "outs_ndim")
        if len(ins_ndim) != len(in_types):
            raise _error(f"Size of `ins_ndim` ({len(ins_ndim)}) should match size of `in_types` "
                         f"({len(in_types)}).", "ins_ndim")
        self._out_dtypes, self._in_dtypes = _dtypes_of(out_types, "out_types"), _dtypes_of(in_types, "in_types")
        self._outs_ndim, self._ins_ndim = _ndims_of(outs_ndim, "outs_ndim"), _ndims_of(ins_ndim, "ins_ndim")
        if setup_fn is None:
            if len(out_types) != len(in_types):
                raise _error("Size of `out_types` should match size of `in_types` when `setup_fn` isn't provided.",
                             "out_types")
            for k in range(len(out_types)):
                if self._out_dtypes[k] != self._in_dtypes[k] or self._outs_ndim[k] != self._ins_ndim[k]:
                    arg = "out_types" if self._out_dtypes[k] != self._in_dtypes[k] else "outs_ndim"
                    raise _error(f"without `setup_fn` output {k} takes input {k}'s shape and type, but `{arg}` at "
                                 f"index {k} differs from the input's entry", arg)
        self._batch_processing = bool(batch_processing)
        self._out_types = [_array_type(d, n) for d, n in zip(self._out_dtypes, self._outs_ndim)]
        self._in_types = [_array_type(d, n) for d, n in zip(self._in_dtypes, self._ins_ndim)]
        args = self._out_types + self._in_types
        if self._batch_processing:
            args = [_nbt.ListType(t) for t in args]
        self._run = _compile(run_fn, "run_fn", _nbt.void(*args))
        nested = _nbt.ListType(_nbt.ListType(_SHAPE))
        self._setup = None if setup_fn is None else _compile(setup_fn, "setup_fn", _nbt.void(nested, nested))
        self.blocks, self.threads_per_block = blocks, threads_per_block  # CUDA launch grid: unused on the CPU
        self._name = name
        self._kwargs = kwargs
        self._calls = 0

    @property
    def device(self):
        return "cpu"

    def __call__(self, *inputs, name=None, **kwargs):
        if "device" in kwargs:
            raise TypeError("NumbaFunction: give `device` when constructing the operator, not when calling it")
        if len(inputs) != len(self._in_types):
            raise _error(f"Expected {len(self._in_types)} inputs (basing on `in_types`), but got {len(inputs)}",
                         "in_types")
        name = name or self._name
        name = name if not (name and self._calls) else f"{name}_{self._calls}"
        self._calls += 1
        outputs = python_function(*inputs, function=self._invoke, num_outputs=len(self._out_types),
                                  batch_processing=True, name=name or instance_name(_OP), **{**self._kwargs, **kwargs})
        return outputs

    def __repr__(self):
        return "NumbaFunction(device='cpu')"

    # --- per batch, called by python_function ------------------------------------------------

    def _check_inputs(self, inputs):
        for k, samples in enumerate(inputs):
            for i, a in enumerate(samples):
                if a.dtype != self._in_dtypes[k]:
                    raise ReturnError(f"{_OP}: Data type passed in `in_types` at index {k} doesn't match type of the "
                                      f"input data: {a.dtype} != {self._in_dtypes[k]} (sample {i})")
                if a.ndim != self._ins_ndim[k]:
                    raise ReturnError(f"{_OP}: Number of dimensions passed in `ins_ndim` at index {k} doesn't match "
                                      f"the number of dimensions of the input data: {a.ndim} != {self._ins_ndim[k]} "
                                      f"(sample {i})")

    def _output_shapes(self, inputs, n):
        """[output][sample] -> shape tuple: setup_fn's, or the inputs'."""
        if self._setup is None:
            return [[a.shape for a in samples] for samples in inputs[:len(self._out_types)]]
        outs = [np.zeros((n, nd), dtype=np.int64) for nd in self._outs_ndim]
        ins = [np.array([a.shape for a in samples], dtype=np.int64).reshape(n, nd)
               for samples, nd in zip(inputs, self._ins_ndim)]
        self._setup(_shape_lists(outs), _shape_lists(ins))
        for k, table in enumerate(outs):
            bad = np.argwhere(table < 0)
            if len(bad):
                i, d = bad[0]
                raise ReturnError(f"{_OP}: Shape of data should be non negative. After `setup_fn` the shape of output "
                                  f"{k} in sample {i} at dimension {d} is {table[i, d]}.")
        return [[tuple(int(x) for x in row) for row in table] for table in outs]

    def _invoke(self, *inputs):
        inputs = [list(samples) for samples in inputs]
        n = len(inputs[0])
        self._check_inputs(inputs)
        shapes = self._output_shapes(inputs, n)
        outputs = [[np.zeros(s, dtype=dt) for s in per_sample] for per_sample, dt in zip(shapes, self._out_dtypes)]
        if self._batch_processing:
            args = [_sample_list(samples, t) for samples, t in zip(outputs + inputs, self._out_types + self._in_types)]
            self._run(*args)
        else:
            for i in range(n):
                self._run(*(samples[i] for samples in outputs + inputs))
        if len(outputs) == 1:
            return outputs[0]
        return tuple(outputs)


def numba_function(*inputs, run_fn=None, out_types=None, in_types=None, outs_ndim=None, ins_ndim=None, setup_fn=None,
                   batch_processing=False, blocks=None, threads_per_block=None, device="cpu", name=None, **kwargs):
    """Runs the Numba-compiled ``run_fn`` on the pipeline's data (see the module's doc). Returns a
    DataNode, or a list of ``len(out_types)`` DataNodes."""
    op = NumbaFunction(run_fn=run_fn, out_types=out_types, in_types=in_types, outs_ndim=outs_ndim, ins_ndim=ins_ndim,
                       setup_fn=setup_fn, device=device, batch_processing=batch_processing, blocks=blocks,
                       threads_per_block=threads_per_block, **kwargs)
    return op(*inputs, name=name)


NumbaFunction.__doc__ = __doc__
numba_function.__doc__ = __doc__


def _namespace(qualified, doc, **members):
    module = _types.ModuleType(qualified, doc)
    vars(module).update(members)
    _sys.modules[qualified] = module
    return module


# DALI's spellings: plugin.numba.fn.numba_function, plugin.numba.fn.experimental.numba_function,
# plugin.numba.experimental.NumbaFunction.
fn = _namespace(__name__ + ".fn", "The functional API of sluice.plugin.numba (DALI's plugin.numba.fn).",
                numba_function=numba_function)
fn.experimental = _namespace(fn.__name__ + ".experimental", "DALI's plugin.numba.fn.experimental.",
                             numba_function=numba_function)
experimental = _namespace(__name__ + ".experimental", "DALI's plugin.numba.experimental.", NumbaFunction=NumbaFunction)
