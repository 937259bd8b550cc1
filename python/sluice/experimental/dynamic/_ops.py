"""Dynamic mode's operator functions: one per registered operator (readers are classes, see
``_readers``), generated from the schemas as ``sluice.fn``'s are, each running one cached graph.

A call's mode comes from its data, as in DALI: any Batch among the inputs or the per-sample
arguments (or a ``batch_size`` given to an operator without Batch inputs, such as a random one)
makes a batch call returning Batches, whose Tensors are broadcast to every sample; otherwise it is
a Tensor call returning Tensors. Inputs that are neither Tensor nor Batch (numbers, lists, arrays)
are constants of the graph, as in ``fn``; so are arguments that are neither. Errors are the
pipeline's: an ArgumentError from the operator's validation, a SluiceError from its run.
"""
import inspect

from ...errors import ArgumentError
from ...graph import call_operator
from ...schema import get_schema
from . import _arith, _engine
from ._batch import Batch
from ._tensor import Tensor


def _fed(value):
    return isinstance(value, (Tensor, Batch))


def _batch_size_of(op_name, values, batch_size):
    """The batch size of a call (None for a Tensor call); raises when Batches disagree."""
    sizes = {v.batch_size for v in values if isinstance(v, Batch)}
    if len(sizes) > 1:
        raise ValueError(f"{op_name}: the Batch inputs and arguments have different batch sizes {sorted(sizes)}")
    if sizes:
        n = sizes.pop()
        if batch_size is not None and int(batch_size) != n:
            raise ValueError(f"{op_name}: batch_size={batch_size} but the Batch inputs have {n} samples")
        return n
    if batch_size is not None:
        if isinstance(batch_size, bool) or int(batch_size) < 1:
            raise ValueError(f"{op_name}: batch_size must be a positive int, got {batch_size!r}")
        return int(batch_size)
    return None


def _feed(value, n):
    """(arrays, layout) that feed `value` to a call of `n` samples (a Tensor is broadcast)."""
    if isinstance(value, Batch):
        return value._samples(), value._layout
    return [value._array] * n, value._layout


def _wrap(batches, tensor_call):
    if tensor_call:
        return [Tensor._wrap(_sample0(b), b.layout) for b in batches]
    return [Batch._from_cpp(b) for b in batches]


def _sample0(cpp_batch):
    import numpy as np
    return np.asarray(cpp_batch.sample(0))


def _rng_for(schema, kwargs, rng):
    """The RNG a random operator's graph is seeded from, or None when its seed is fixed by `seed`
    (or the operator is not random)."""
    if not schema.is_random:
        if rng is not None:
            raise ArgumentError(f"{schema.name}: rng is an argument of random operators only", op=schema.name,
                                argument="rng")
        return None
    if kwargs.get("seed") not in (None, -1):
        return None
    from . import random as _random
    return _random._resolve_rng(rng)


def invoke(op_name, inputs, kwargs, device=None, batch_size=None, rng=None, position=None, seed=None, cache=True):
    """Runs operator `op_name` once and returns its outputs (a list of Tensors or Batches).

    `position` and `seed` (debug mode) make an uncached graph whose operator gets the seed the same
    operator gets at that position in a pipeline with that seed."""
    schema = get_schema(op_name)
    while inputs and inputs[-1] is None:
        inputs = inputs[:-1]
    consts = {k: v for k, v in kwargs.items() if v is not None and not _fed(v)}
    fed_args = {k: v for k, v in kwargs.items() if _fed(v)}
    fed_inputs = [v for v in inputs if _fed(v)]
    n = _batch_size_of(op_name, fed_inputs + list(fed_args.values()), batch_size)
    tensor_call = n is None
    n = 1 if tensor_call else n
    device = device or "cpu"
    graph_rng = _rng_for(schema, kwargs, rng) if seed is None else None

    def define(ins, args):
        it = iter(ins)
        call_inputs = [next(it) if _fed(v) else v for v in inputs]
        return call_operator(op_name, call_inputs, {**consts, **args}, device=device)

    threads = 1 if n == 1 else _engine.get_num_threads()
    key = None
    if cache and position is None and (not schema.is_random or graph_rng is not None):
        try:
            key = (op_name, device, n, threads, tuple("fed" if _fed(v) else _engine.freeze(v) for v in inputs),
                   tuple(sorted(fed_args)), tuple(sorted((k, _engine.freeze(v)) for k, v in consts.items())),
                   None if graph_rng is None else (graph_rng._uid, graph_rng._version))
        except TypeError:
            key = None  # an unhashable constant: an uncached graph

    def make():
        graph_seed = seed if seed is not None else (graph_rng._draw_seed() if graph_rng is not None else None)
        return _engine.OpGraph(define, n, len(fed_inputs), list(fed_args), threads, seed=graph_seed,
                               position=position)

    graph = _engine.cached_graph(key, make)
    out = _engine.run_graph(key, graph, [_feed(v, n) for v in fed_inputs],
                            {k: _feed(v, n) for k, v in fed_args.items()})
    _engine.check_host_outputs(op_name, out)
    return _wrap(out, tensor_call)


def call_expression(name, func, operands):
    """``func`` (an operator of DataNode arithmetic, or a sluice.math function) applied to Tensors,
    Batches and constants, as one arithmetic.expression graph."""
    fed = [v for v in operands if _fed(v)]
    n = _batch_size_of(f"arithmetic {name}", fed, None)
    tensor_call = n is None
    n = 1 if tensor_call else n

    def define(ins, args):
        it = iter(ins)
        return [func(*[next(it) if _fed(v) else v for v in operands])]

    threads = 1 if n == 1 else _engine.get_num_threads()
    try:
        key = ("__expression__", name, n, threads, tuple("fed" if _fed(v) else _engine.freeze(v) for v in operands))
    except TypeError:
        key = None
    graph = _engine.cached_graph(key, lambda: _engine.OpGraph(define, n, len(fed), [], threads))
    out = _engine.run_graph(key, graph, [_feed(v, n) for v in fed], {})
    return _wrap(out, tensor_call)[0]


def make_function(schema, func_name, module_name):
    """The dynamic-mode function of one operator: inputs positionally, arguments by keyword (a Tensor
    or Batch for a per-sample argument), plus ``device``, ``batch_size`` and ``rng``."""
    op_name = schema.name

    def op_function(*inputs, device=None, batch_size=None, rng=None, **kwargs):
        kwargs.pop("name", None)
        outputs = invoke(op_name, list(inputs), kwargs, device=device, batch_size=batch_size, rng=rng)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    from ... import namespaces as _ns
    op_function.__name__ = func_name
    op_function.__qualname__ = func_name
    op_function.__module__ = module_name
    op_function.__doc__ = schema.doc
    params = _ns.input_parameters(schema) + [
        inspect.Parameter("device", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("batch_size", inspect.Parameter.KEYWORD_ONLY, default=None),
        inspect.Parameter("rng", inspect.Parameter.KEYWORD_ONLY, default=None)]
    params += [p for p in _ns.keyword_parameters(schema) if p.name not in ("device", "name")]
    op_function.__signature__ = inspect.Signature(params)
    return op_function


_arith.runner = call_expression
