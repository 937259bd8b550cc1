"""external_source: batches produced by Python code and fed to the pipeline before each iteration.

``source`` may be a callable, an iterable, or a generator function. The pipeline calls it before
every ``schedule_run`` and feeds the result (NumPy arrays, anything ``np.asarray`` accepts, or
``bytes`` as uint8) into the C++ ``external_source`` operator. ``StopIteration`` from the source
ends the epoch: ``run()`` raises it once the batches already scheduled are consumed; ``reset()``
starts the next epoch. As in DALI, an iterable (or a generator function) is iterated ONCE unless
``cycle`` says otherwise: ``cycle=None``/``False``/``"no"`` -- after its end, every later epoch ends
at once (``reset()`` does not restart it; a callable source is simply called again);
``cycle=True``/``"quiet"`` restarts it silently; ``cycle="raise"`` ends the epoch with
StopIteration and restarts it for the next one.

Without a ``source`` the data is fed with ``Pipeline.feed_input``; ``repeat_last=True`` then makes
the operator feed itself the most recent batch again for an iteration for which nothing new was
fed (DALI's "push" mode option).
"""
import collections
import collections.abc
import inspect
import itertools

from .errors import ArgumentError
from .graph import make_call
from .tensors import to_sample_array, to_samples

from .parallel_source import BatchInfo, ParallelPool, SampleInfo  # noqa: E402 (re-exported)

_names = itertools.count()


class ExternalSourceGroup:
    """The Python side of one external_source call: its source and the C++ operators it feeds."""

    def __init__(self, source, num_outputs, cycle, batch, batch_info, layout, parallel=False,
                 prefetch_queue_depth=1, repeat_last=False):
        if cycle not in (None, False, True, "no", "quiet", "raise"):
            raise ArgumentError(f"external_source: cycle must be False, True, 'quiet' or 'raise', got {cycle!r}",
                                op="external_source", argument="cycle")
        self.source = source
        self.num_outputs = num_outputs
        self.cycle = {None: "no", False: "no", True: "quiet"}.get(cycle, cycle)
        self.batch = batch
        self.batch_info = batch_info
        self.layout = layout
        self.repeat_last = bool(repeat_last)
        if self.repeat_last and source is not None:
            raise ValueError("external_source: ``repeat_last`` must not be set when using the ``source`` argument; "
                             "it is usable only with an external_source fed by Pipeline.feed_input")
        self.op_names = []
        self._iterator = None
        self._iteration = 0
        self._epoch = 0
        self._is_callable = callable(source) and not inspect.isgeneratorfunction(source)
        if source is not None and not self._is_callable and not inspect.isgeneratorfunction(source):
            if not isinstance(source, collections.abc.Iterable):
                raise ArgumentError("external_source: source must be a callable, an iterable or a generator function",
                                    op="external_source", argument="source")
        self._callback_args = _positional_arity(source) if self._is_callable else 0
        if self.cycle != "no" and self._is_callable:
            raise ArgumentError("external_source: cycle applies to iterables, not to callables",
                                op="external_source", argument="cycle")
        self.parallel = bool(parallel)
        self.prefetch_queue_depth = 1 if prefetch_queue_depth is None else int(prefetch_queue_depth)
        self.pool = None  # a parallel_source.ParallelPool, started by Pipeline.build()
        if self.parallel:
            _check_parallel_source(self)

    def start_pool(self, num_workers, start_method, pickler=None):
        """Starts the worker processes of a parallel external source (at the pipeline's build())."""
        if self.parallel and self.pool is None:
            self.pool = ParallelPool(self, num_workers, start_method, self.prefetch_queue_depth, pickler=pickler)
        return self.pool

    def reset(self):
        """Starts the next epoch (after StopIteration). As in DALI, a non-cycling iterable or
        generator is not restarted: it stays exhausted, so the next epoch ends at once; with
        ``cycle="raise"`` it starts a fresh pass."""
        if self.cycle == "raise":
            self._iterator = None
        self._iteration = 0
        self._epoch += 1

    def next_batch(self, batch_size):
        """One batch per output: a list of NumPy arrays each. Raises StopIteration at the epoch's end."""
        if self.pool is not None:
            batches = self.pool.next_batch(self._epoch, self._iteration, batch_size)
            if len(batches) != len(self.op_names):
                raise ValueError(f"external_source: the source returned {len(batches)} outputs, "
                                 f"expected num_outputs={len(self.op_names)}")
        elif self.batch:
            data = self._next_item(self._info_for_batch())
            outputs = data if self.num_outputs is not None else (data,)
            outputs = list(outputs)
            if len(outputs) != len(self.op_names):
                raise ValueError(f"external_source: the source returned {len(outputs)} outputs, "
                                 f"expected num_outputs={len(self.op_names)}")
            batches = [to_samples(o) for o in outputs]
        else:
            samples = [self._next_item(self._info_for_sample(i, batch_size)) for i in range(batch_size)]
            if self.num_outputs is None:
                batches = [[to_sample_array(s) for s in samples]]
            else:
                batches = [[to_sample_array(s[k]) for s in samples] for k in range(len(self.op_names))]
        for b in batches:
            if len(b) != batch_size:
                raise ValueError(f"external_source: the source gave a batch of {len(b)} samples; "
                                 f"the pipeline's batch_size is {batch_size}")
        self._iteration += 1
        return batches

    def _info_for_batch(self):
        return BatchInfo(self._iteration, self._epoch) if self.batch_info else self._iteration

    def _info_for_sample(self, i, batch_size):
        return SampleInfo(self._iteration * batch_size + i, i, self._iteration, self._epoch)

    def _next_item(self, info):
        if self._is_callable:
            return self.source(info) if self._callback_args >= 1 else self.source()
        if self._iterator is None:
            self._iterator = iter(self.source() if inspect.isgeneratorfunction(self.source) else self.source)
        try:
            return next(self._iterator)
        except StopIteration:
            if self.cycle == "quiet":
                self._iterator = iter(self.source() if inspect.isgeneratorfunction(self.source) else self.source)
                return next(self._iterator)
            raise


def _check_parallel_source(group):
    """DALI's rules for ``parallel=True``: a callable taking one argument (SampleInfo with
    ``batch=False``; BatchInfo or the iteration with ``batch=True``), or, with ``batch=True`` only,
    an iterable or a generator function (iterated by one worker process)."""
    if group.source is None:
        raise ArgumentError("external_source: parallel=True needs a `source`",
                            op="external_source", argument="parallel")
    if not group._is_callable:
        if not group.batch:
            what = "a generator function" if inspect.isgeneratorfunction(group.source) else "an iterable"
            raise ArgumentError(f"external_source: a parallel external source with {what} must run in batch mode "
                                f"(batch=True, the source giving whole batches); per sample (batch=False) it "
                                f"must be a callable taking a SampleInfo", op="external_source", argument="batch")
    elif group._callback_args != 1:
        what = "SampleInfo" if not group.batch else ("BatchInfo" if group.batch_info else "the iteration index")
        raise ArgumentError(f"external_source: with parallel=True the source callback must accept exactly one "
                            f"positional argument ({what}), it takes {group._callback_args}",
                            op="external_source", argument="source")
    if group.prefetch_queue_depth < 1:
        raise ArgumentError(f"external_source: prefetch_queue_depth must be at least 1, got "
                            f"{group.prefetch_queue_depth}", op="external_source", argument="prefetch_queue_depth")


def _positional_arity(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)


def external_source(source=None, num_outputs=None, *, cycle=None, name=None, device="cpu", layout="",
                    dtype="", ndim=-1, batch=True, batch_info=False, parallel=False, no_copy=None,
                    prefetch_queue_depth=1, cuda_stream=None, use_copy_kernel=None, blocking=None, seed=-1,
                    bytes_per_sample_hint=[0], preserve=False, repeat_last=False):  # noqa: B006 (the schema's default)
    """Creates an external source: a DataNode (or a list of ``num_outputs`` DataNodes) fed from Python.

    Without ``source``, feed each batch with ``pipe.feed_input(name, data)`` before each run.
    ``layout``, ``dtype`` and ``ndim`` (one value, or one per output), ``seed``,
    ``bytes_per_sample_hint`` and ``preserve`` are the C++ ``external_source`` operator's arguments,
    with its defaults (None also means the default, as in DALI). ``parallel=True`` runs a callable
    ``source`` in the pipeline's ``py_num_workers`` worker processes (``py_start_method``), with
    ``prefetch_queue_depth`` batches computed ahead (see ``sluice.parallel_source``); an iterable or
    a generator function (``batch=True`` only) is iterated by one worker process. ``repeat_last=True``
    (only without ``source``): an iteration for which ``feed_input`` gave no new batch gets the most
    recently fed one again. ``no_copy``, ``cuda_stream``, ``use_copy_kernel`` and ``blocking`` are
    accepted for DALI compatibility; Sluice always copies the fed data.
    """
    n = 1 if num_outputs is None else int(num_outputs)
    layouts = layout if isinstance(layout, (list, tuple)) else [layout] * n
    dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype] * n
    group = ExternalSourceGroup(source, num_outputs, cycle, batch, batch_info, layouts, parallel=parallel,
                                prefetch_queue_depth=prefetch_queue_depth, repeat_last=repeat_last)
    base = name or f"__external_source_{next(_names)}"
    nodes = []
    for k in range(n):
        op_name = base if num_outputs is None else f"{base}[{k}]"
        kwargs = {"layout": layouts[k] or None, "dtype": dtypes[k], "ndim": ndim, "seed": seed,
                  "bytes_per_sample_hint": bytes_per_sample_hint, "preserve": preserve}
        call = make_call("external_source", [], kwargs, device=device, name=op_name)
        call.external_source = group
        group.op_names.append(op_name)
        if call.pipeline is not None:
            call.pipeline._record_call(call)
        nodes.extend(call.outputs)
    return nodes if num_outputs is not None else nodes[0]


class ExternalSource:
    """The object API of external_source: arguments at construction, ``__call__()`` makes the node."""

    def __init__(self, source=None, num_outputs=None, **kwargs):
        _SIGNATURE.bind(source, num_outputs, **kwargs)  # a TypeError for an unknown argument, now
        self._source = source
        self._num_outputs = num_outputs
        self._kwargs = kwargs

    def __call__(self, source=None, **kwargs):
        return external_source(source if source is not None else self._source, self._num_outputs,
                               **{**self._kwargs, **kwargs})


_SIGNATURE = inspect.signature(external_source)
ExternalSource.__init__.__signature__ = _SIGNATURE.replace(
    parameters=[inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY), *_SIGNATURE.parameters.values()])
