"""How dynamic mode runs an operator: one call is one iteration of a small built C++ pipeline.

An :class:`OpGraph` is a C++ pipeline made of one external source per fed input (``input<i>``)
and per per-sample argument (``arg_<name>``), followed by what a ``define`` function makes of
them (one operator call, or an arithmetic expression). It runs synchronously on the calling
thread (``exec_pipelined=False, exec_async=False``: no queue, no hand-off), and the operator's
samples run on the graph's thread pool. A call feeds its inputs (the C++ external source copies
them once), runs, and hands the outputs back without copying.

Building a graph costs milliseconds; running one costs tens of microseconds. So graphs are cached
by everything that shapes them (:func:`cached_graph`): the operator, its constant arguments, which
inputs and arguments are fed, the batch size, the thread count and, for random operators, the
random generator's identity and version (a random graph is a stream: later calls continue it).
The cache is bounded (least recently used graphs are dropped) and emptied in a forked child
(a forked process has none of the parent's worker threads; its graphs are left alive, unused).

Thread-safety: the cache has one lock; each graph has its own, held from the first feed to the
end of the run, so that calls from several threads never interleave their inputs.
"""
import collections
import copy
import os
import threading

from ... import _sluice
from ...errors import SluiceError
from ...external_source import external_source
from ...pipeline import Pipeline

_MAX_CACHED = 64  # each graph of a batch call holds its worker threads
_cache = collections.OrderedDict()
_cache_lock = threading.Lock()
_forked_away = []  # graphs of the parent process, never destroyed in a forked child (see the module doc)



def _default_num_threads():
    """DALI's rule: ``DALI_NUM_THREADS`` (or Sluice's ``SLUICE_NUM_THREADS``) if set, else the CPUs
    available to the process."""
    for var in ("SLUICE_NUM_THREADS", "DALI_NUM_THREADS"):
        value = os.environ.get(var)
        if value:
            try:
                n = int(value)
            except ValueError:
                raise ValueError(f"{var} must be a positive integer, got {value!r}") from None
            if n < 1:
                raise ValueError(f"{var} must be a positive integer, got {value!r}")
            return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


_num_threads = _default_num_threads()


def get_num_threads():
    """The worker threads of each batch call (DALI's ``ndd.get_num_threads``)."""
    return _num_threads


def set_num_threads(n):
    """Sets the worker threads of later batch calls (DALI's ``ndd.set_num_threads``). Graphs already
    cached keep theirs; new ones (the cache key has the count) use `n`."""
    global _num_threads
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_threads: the number of threads must be a positive int, got {n!r}")
    _num_threads = n


class OpGraph:
    """A built single-step C++ pipeline: fed inputs -> `define(inputs, arg_inputs)` -> outputs.

    `define` takes a list of DataNodes (the fed inputs, in order) and a dict of DataNodes (the fed
    per-sample arguments) and returns the output DataNodes; it runs inside the graph's definition,
    so operator calls validate there and raise :class:`~sluice.errors.ArgumentError` as in a
    pipeline. `position` (debug mode): the operator is added as the C++ pipeline's
    `position`-th operator, so that its seed derived from `seed` is the one the same operator gets
    at that position in a full pipeline (unused external sources fill the places before it and are
    pruned at build)."""

    def __init__(self, define, batch_size, num_inputs, arg_names, num_threads, seed=None, position=None):
        pipe = Pipeline(batch_size=max(1, batch_size), num_threads=num_threads, device_id=None, seed=seed,
                        exec_pipelined=False, exec_async=False, prefetch_queue_depth=1)
        self.input_names = [f"input{i}" for i in range(num_inputs)]
        self.arg_names = {a: f"arg_{a}" for a in arg_names}
        with pipe:
            ins = [external_source(name=n) for n in self.input_names]
            args = {a: external_source(name=n) for a, n in self.arg_names.items()}
            outs = define(ins, args)
            pipe.set_outputs(*outs)
        pipe._build_graph()
        calls = pipe._calls
        options = copy.copy(pipe._options)
        if not any(c.device != "cpu" for c in calls):
            options.device_id = -1
        cpp = _sluice.Pipeline(options)
        edges = {}
        fill = 0 if position is None else position - (len(calls) - 1)
        for k, call in enumerate(calls):
            if k == len(calls) - 1:
                for j in range(max(0, fill)):  # places before the operator (pruned: nothing reads them)
                    cpp.add_operator(_PLACEHOLDER_DEF(), f"__position{j}", [], {})
            call.add_to(cpp, edges)
        cpp.set_outputs([edges[n] for n in pipe._outputs])
        cpp.build()
        self.position_matched = position is None or fill >= 0
        self.cpp = cpp
        self.num_outputs = len(pipe._outputs)
        self.lock = threading.Lock()

    def run(self, inputs, arg_inputs):
        """Feeds `inputs` (one ``(arrays, layout)`` per fed input) and `arg_inputs` (argument ->
        ``(arrays, layout)``), runs one iteration and returns the C++ output batches."""
        cpp = self.cpp
        with self.lock:
            for name, (arrays, layout) in zip(self.input_names, inputs):
                cpp.feed_input(name, arrays, layout)
            for arg, (arrays, layout) in arg_inputs.items():
                cpp.feed_input(self.arg_names[arg], arrays, layout)
            return cpp.run()


_placeholder = None


def _PLACEHOLDER_DEF():
    """The validated definition of an unfed external source (a placeholder op, pruned at build)."""
    global _placeholder
    if _placeholder is None:
        _placeholder = _sluice.validate_operator("external_source", "", "cpu", [], {}, {})
    return _placeholder


def cached_graph(key, make):
    """The graph cached under `key`, made by `make()` on a miss; `key` None: never cached."""
    if key is None:
        return make()
    with _cache_lock:
        graph = _cache.get(key)
        if graph is not None:
            _cache.move_to_end(key)
            return graph
    graph = make()  # outside the lock: building may take milliseconds or raise
    with _cache_lock:
        _cache[key] = graph
        while len(_cache) > _MAX_CACHED:
            _cache.popitem(last=False)
    return graph


def run_graph(key, graph, inputs, arg_inputs):
    """graph.run(), dropping the graph from the cache when it fails (its executor may hold the error)."""
    try:
        return graph.run(inputs, arg_inputs)
    except BaseException:
        if key is not None:
            with _cache_lock:
                if _cache.get(key) is graph:
                    del _cache[key]
        raise


def clear_cache():
    """Drops every cached graph (tests, and ``random.set_seed`` does not need it: see random.py)."""
    with _cache_lock:
        _cache.clear()


def _after_fork_in_child():
    _forked_away.extend(_cache.values())
    _cache.clear()


os.register_at_fork(after_in_child=_after_fork_in_child)


def freeze(value):
    """A hashable form of a constant argument (lists, tuples, dicts, arrays, enums), or raise TypeError."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, freeze(v)) for k, v in value.items()))
    if type(value).__module__ == "numpy":
        import numpy as np
        arr = np.asarray(value)
        return ("ndarray", arr.dtype.str, arr.shape, arr.tobytes())
    hash(value)
    return (type(value).__name__, value)


def check_host_outputs(op_name, batches):
    for b in batches:
        if b.device != "cpu":
            raise SluiceError(f"{op_name}: dynamic mode hands out host data only in this version of Sluice; "
                              f"run the operator with device='cpu'")
