"""Pipeline: the graph of operators, its build, and the run methods (DALI's Python Pipeline).

Two ways to define the graph, giving identical pipelines:

* ``with pipe: ... pipe.set_outputs(a, b)`` (or ``@pipeline_def``), calling ``fn``/``ops``;
* subclassing and overriding ``define_graph()``, which ``build()`` calls.

``pipeline_def`` (also ``pipeline.experimental.pipeline_def``, as DALI's examples import it) turns a
graph-defining function into a pipeline factory.

Run methods: ``run()`` (= ``schedule_run()`` + ``outputs()``), or the scheduled API
``schedule_run()``, ``share_outputs()``, ``release_outputs()``; one pipeline uses one family.
The first ``schedule_run()`` fills the prefetch queue (``prefetch_queue_depth`` iterations); each
scheduled iteration first feeds every external source its next batch.
"""
import copy
import functools
import inspect
import operator
import os
import sys
import types as _pytypes
import weakref

from . import _sluice, current
from .errors import SluiceError
from .graph import DataNode, collect_calls
from .tensors import to_samples, wrap_batch
from .types import PipelineAPIType


class Pipeline:
    """A graph of operators and its executor, with DALI's constructor arguments.

    ``batch_size``, ``num_threads`` (-1: one per CPU), ``device_id`` (None/-1: CPU only; any id is
    accepted for a graph without GPU operators), ``seed`` (-1: random), ``exec_pipelined``,
    ``prefetch_queue_depth`` (int, or ``{"cpu_size": x, "gpu_size": y}`` with ``exec_async``),
    ``exec_async``, ``bytes_per_sample`` (output presizing hint), ``set_affinity``
    (``DALI_AFFINITY_MASK``/``SLUICE_AFFINITY_MASK``), ``enable_memory_stats``; Sluice only:
    ``fuse_operators`` (default True: a CPU ``resize`` read only by a ``crop_mirror_normalize``
    runs as one step per sample without materialising the resized batch; identical results, and
    ``executor_statistics()`` then has one entry ``"resize#0+crop_mirror_normalize#0"``). ``max_streams``,
    ``default_cuda_stream_priority`` and the ``py_*`` arguments are accepted and ignored;
    ``output_dtype``/``output_ndim`` are not supported.

    Checkpointing as DALI's: with ``enable_checkpointing=True``, ``checkpoint()`` returns (and
    writes to ``filename``) where the pipeline stands after the last batch taken; a pipeline
    defined the same way and built with ``checkpoint=`` that text continues with the batches this
    one would have returned next (readers' positions, shuffling, random operators; the
    checkpoint's seed replaces ``seed``). External sources' data is the caller's to restore.
    """

    def __init__(self, batch_size=-1, num_threads=-1, device_id=None, seed=-1, exec_pipelined=True,
                 prefetch_queue_depth=2, exec_async=True, bytes_per_sample=0, set_affinity=False,
                 max_streams=-1, default_cuda_stream_priority=0, *, enable_memory_stats=False,
                 enable_checkpointing=False, checkpoint=None, fuse_operators=True, py_num_workers=1,
                 py_start_method="fork",
                 py_callback_pickler=None, output_dtype=None, output_ndim=None, memory_budget=None):
        if checkpoint is not None and not isinstance(checkpoint, str):
            raise TypeError(f"checkpoint must be the str that Pipeline.checkpoint() returned, got "
                            f"{type(checkpoint).__name__}")
        if output_dtype is not None or output_ndim is not None:
            raise NotImplementedError("Sluice does not support output_dtype/output_ndim checks")
        # The C++ PipelineOptions, validated by the C++ Pipeline at build(). Python translates only
        # DALI's spellings: None and -1 defaults, and prefetch_queue_depth as a dict.
        o = self._options = _sluice.PipelineOptions()
        o.batch_size = int(batch_size)
        o.auto_threads = _is_auto(num_threads, "num_threads")
        o.num_threads = 1 if o.auto_threads else _int_arg(num_threads, "num_threads", os.cpu_count() or 1)
        o.device_id = -1 if device_id is None else int(device_id)
        o.seed = -1 if seed is None else int(seed)
        o.exec_pipelined = bool(exec_pipelined)
        o.exec_async = bool(exec_async)
        o.auto_queue_depth = _is_auto(prefetch_queue_depth, "prefetch_queue_depth")
        o.cpu_queue_depth, o.gpu_queue_depth = (2, 2) if o.auto_queue_depth else _queue_depths(prefetch_queue_depth,
                                                                                                exec_async)
        o.memory_budget = _memory_budget(memory_budget)
        o.bytes_per_sample = int(bytes_per_sample)
        o.set_affinity = bool(set_affinity)
        o.enable_memory_stats = bool(enable_memory_stats)
        o.fuse_operators = bool(fuse_operators)
        o.enable_checkpointing = bool(enable_checkpointing)
        o.checkpoint = checkpoint
        self._prefetch_queue_depth = prefetch_queue_depth
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method

        self._outputs = None        # DataNodes given to set_outputs / returned by define_graph
        self._recorded = []         # calls made while this pipeline was current (for `preserve`)
        self._cpp = None            # the C++ pipeline, made by build()
        self._sources = []          # ExternalSourceGroups with a `source`, in graph order
        self._all_sources = {}      # external_source op name -> group (for feed_input)
        self._fed_videos = set()    # experimental.inputs.video op names (for feed_input)
        self._api_type = None
        self._first_iter = True     # the next schedule_run() fills the prefetch queue
        self._scheduled = 0         # iterations scheduled, not yet taken
        self._stop_pending = False  # an external source raised StopIteration
        self._last_iter = False     # StopIteration was raised to the caller; reset() restarts

    # --- properties (DALI names) -------------------------------------------------------------
    batch_size = property(lambda self: self._options.batch_size)
    max_batch_size = property(lambda self: self._options.batch_size)
    num_threads = property(lambda self: "auto" if self._options.auto_threads else self._options.num_threads)
    memory_budget = property(lambda self: self._options.memory_budget or None)
    device_id = property(lambda self: self._options.device_id)
    exec_pipelined = property(lambda self: self._options.exec_pipelined)
    exec_async = property(lambda self: self._options.exec_async)
    prefetch_queue_depth = property(lambda self: self._prefetch_queue_depth)
    enable_memory_stats = property(lambda self: self._options.enable_memory_stats)
    fuse_operators = property(lambda self: self._options.fuse_operators)

    @property
    def seed(self):
        return self._cpp.seed if self._cpp is not None else self._options.seed

    # --- graph definition --------------------------------------------------------------------
    @staticmethod
    def current():
        """The pipeline of the innermost ``with pipe:`` block (or being built), or None."""
        return current.current()

    def __enter__(self):
        current.push(self)
        return self

    def __exit__(self, *exc):
        current.pop()
        return False

    def _record_call(self, call):
        self._recorded.append(call)

    def define_graph(self):
        """Override to define the graph; return the output DataNodes."""
        raise NotImplementedError("define the graph with set_outputs() or by overriding define_graph()")

    def set_outputs(self, *outputs):
        """Sets the pipeline's outputs (DataNodes), in order."""
        if self._cpp is not None:
            raise SluiceError("cannot change the outputs of a built pipeline")
        if len(outputs) == 1 and isinstance(outputs[0], (list, tuple)):
            outputs = tuple(outputs[0])
        for i, out in enumerate(outputs):
            if not isinstance(out, DataNode):
                raise TypeError(f"pipeline output {i} must be a DataNode, got {type(out).__name__}")
        self._outputs = list(outputs)

    # --- build -------------------------------------------------------------------------------
    def build(self):
        """Creates the C++ pipeline from the graph. Idempotent."""
        if self._cpp is not None:
            return
        if self._outputs is None:
            with self:
                outs = self.define_graph()
            self.set_outputs(*(outs if isinstance(outs, (list, tuple)) else (outs,)))
        calls = collect_calls(self._outputs, [c for c in self._recorded if c.preserve()])
        options = copy.copy(self._options)
        if not any(c.device != "cpu" for c in calls):
            options.device_id = -1  # a CPU-only graph never touches CUDA, whatever device_id says
        # Parallel external sources' workers start before the C++ pipeline (and its threads) exist.
        pools = [c.external_source.start_pool(self._py_num_workers, self._py_start_method)
                 for c in calls if c.external_source is not None and c.external_source.parallel]
        if pools:
            weakref.finalize(self, _close_pools, pools)
        cpp = _sluice.Pipeline(options)  # validates the options
        edges = {}
        for call in calls:
            call.add_to(cpp, edges)
        cpp.set_outputs([edges[n] for n in self._outputs])
        cpp.build()
        groups = []
        for call in calls:
            group = call.external_source
            if group is not None and group not in groups:
                groups.append(group)
                for op_name in group.op_names:
                    self._all_sources[op_name] = group
        self._sources = [g for g in groups if g.source is not None]
        self._fed_videos = {c.name for c in calls if c.schema.name == "experimental.inputs.video" and c.name}
        self._cpp = cpp
        # The graph's back-references to this pipeline are no longer needed: without them `del pipe`
        # frees it (its executor, its parallel sources' workers and shared memory) at once, not at
        # the next garbage collection.
        for call in calls + self._recorded:
            call.pipeline = None
            for node in call.outputs:
                if "_pipeline" in node.__dict__:  # a materialised ExpressionNode
                    node.__dict__["_pipeline"] = None

    def _built(self):
        self.build()
        return self._cpp

    # --- run methods -------------------------------------------------------------------------
    def _use_api(self, api):
        if self._api_type is None:
            self._api_type = api
        elif self._api_type != api:
            raise SluiceError(f"cannot mix run methods on one pipeline: it was used through the "
                              f"{self._api_type.name} API and now through the {api.name} API")

    def run(self):
        """Runs one iteration and returns its outputs (a tuple of TensorListCPU)."""
        self._use_api(PipelineAPIType.BASIC)
        self._schedule()
        return self._take(release_previous=True)

    def schedule_run(self):
        """Schedules the next iteration (the first call fills the prefetch queue)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._schedule()

    def share_outputs(self):
        """The next scheduled iteration's outputs; they stay valid until release_outputs()."""
        self._use_api(PipelineAPIType.SCHEDULED)
        return self._take(release_previous=False)

    def release_outputs(self):
        """Returns the oldest shared outputs' buffers to the pipeline."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._built().release_outputs()

    def outputs(self):
        """The next scheduled iteration's outputs (the run() family); releases the previous ones."""
        self._use_api(PipelineAPIType.BASIC)
        return self._take(release_previous=True)

    # The framework iterators' entry points (the ITERATOR API type, checked once by the iterator).
    def _schedule_run(self):
        self._schedule()

    def _share_outputs(self):
        return self._take(release_previous=False)

    def _release_outputs(self):
        self._built().release_outputs()

    def empty(self):
        """True if no iteration is scheduled and not yet taken."""
        return self._scheduled == 0

    def _schedule(self):
        cpp = self._built()
        if self._last_iter:
            return  # the epoch ended; reset() starts the next one
        n = cpp.prefetch_depth() if self._first_iter else 1
        self._first_iter = False
        for _ in range(n):
            if self._stop_pending:
                return
            try:
                self._feed_sources()
            except StopIteration:
                self._stop_pending = True
                return
            cpp.schedule_run()
            self._scheduled += 1

    def _take(self, release_previous):
        cpp = self._built()
        if self._scheduled == 0 and (self._stop_pending or self._last_iter):
            self._last_iter = True
            self._stop_pending = False
            raise StopIteration
        batches = cpp.outputs() if release_previous else cpp.share_outputs()
        self._scheduled -= 1
        return tuple(wrap_batch(b, self.device_id) for b in batches)

    def _feed_sources(self):
        # Every source is asked first, then all are fed: a StopIteration from one leaves none fed.
        fed = []
        for group in self._sources:
            try:
                fed.append((group, group.next_batch(self.batch_size)))
            except StopIteration:
                raise
            except Exception as e:
                e.add_note(f"(raised by the source of external_source '{group.op_names[0]}')")
                raise
        for group, batches in fed:
            for op_name, arrays, layout in zip(group.op_names, batches, group.layout):
                self._cpp.feed_input(op_name, arrays, layout or "")

    def feed_input(self, data_node, data, layout=None):
        """Feeds one batch to an external_source without a `source` (by name or DataNode), or
        encoded videos to an experimental.inputs.video (each sample one video, uint8 1-D)."""
        name = data_node.source_call.name if isinstance(data_node, DataNode) else data_node
        cpp = self._built()
        if name not in self._all_sources and name not in self._fed_videos:
            raise SluiceError(f"there is no external_source or experimental.inputs.video named '{name}' "
                              f"in the pipeline")
        cpp.feed_input(name, to_samples(data), layout or "")

    def reset(self):
        """After StopIteration from an external source: starts the next epoch. Otherwise a no-op
        (readers run on across epochs; batches already prefetched belong to the next one)."""
        if not self._last_iter and not self._stop_pending:
            return
        if self._scheduled:
            return  # batches from before the end remain to be taken
        self._last_iter = False
        self._stop_pending = False
        self._first_iter = True
        for group in self._all_sources.values():
            group.reset()
        if self._cpp is not None:
            self._cpp.reset()

    # --- introspection -----------------------------------------------------------------------
    def executor_statistics(self):
        """``{op_name: {"real_memory_size": [...], "max_real_memory_size": [...],
        "reserved_memory_size": [...], "max_reserved_memory_size": [...], ...}}`` as in DALI (memory
        lists, one entry per output, are filled with enable_memory_stats), plus timing keys:
        "batches", "total_time_ms", "mean_batch_ms", "last_batch_ms", and "counters": the operator's own
        counts (a Sluice extension; e.g. experimental.inputs.video's "decoder_starts"), {} for most. With ``num_threads="auto"``,
        ``prefetch_queue_depth="auto"`` or ``memory_budget``, one more entry, ``"autotune"`` (a Sluice
        extension; it has no "op" key): the threads and depth in use, their bounds, the budget, the
        last window's measurements, the list of changes (batch, threads, depth, reason) and, with
        ``num_threads="auto"``, the thread search ("search": the default it started from, its
        phase, the best count and its batches/s, and every step measured: threads, batches/s,
        the consumer's wait fraction, kept)."""
        stats = self._built().executor_statistics()
        out = {}
        for s in stats.operators:
            out[s.name] = {
                "real_memory_size": list(s.real_memory_size),
                "max_real_memory_size": list(s.max_real_memory_size),
                "reserved_memory_size": list(s.reserved_memory_size),
                "max_reserved_memory_size": list(s.max_reserved_memory_size),
                "batches": s.batches,
                "total_time_ms": s.total_time_ms,
                "mean_batch_ms": s.mean_batch_ms,
                "last_batch_ms": s.last_batch_ms,
                "op": s.op,
                "device": s.device,
                "replaced_samples": s.replaced_samples,
                "counters": dict(s.counters),
            }
        if stats.autotune.enabled:
            out["autotune"] = _autotune_dict(stats.autotune)
        return out

    def error_log(self):
        """The rows replaced after errors (``on_error="replace"`` on a decoder or a reader), oldest
        first, as ``SampleError`` records: ``op`` (the operator that failed), ``source`` (``path``,
        ``member`` of a tar and byte ``offset``, also as one string), ``iteration``, ``sample`` (the
        row), ``replaced_by`` (the row whose values took its place in every output) and ``message``.
        A batch's records appear when the batch is taken (the last 10,000 are kept). A Sluice
        extension: DALI has no error log."""
        return list(self._built().error_log())

    def checkpoint(self, filename=None):
        """Where the pipeline stands after the last batch taken, as text for ``Pipeline(checkpoint=...)``;
        also written to ``filename`` if given. Needs ``enable_checkpointing=True``."""
        text = self._get_checkpoint()
        if filename is not None:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def _get_checkpoint(self, iterator_data="", rewind=0):
        return self._built().checkpoint(iterator_data, rewind)

    def _checkpoint_iterator_data(self):
        """The iterator data of the checkpoint this pipeline was built from ("" without one)."""
        return self._built().checkpoint_external_data()

    def queue_statistics(self):
        """Prefetch queue occupancy, consumer wait time and mean time per batch of each stage (a Sluice
        extension)."""
        s = self._built().executor_statistics()
        return {"mean_queue_occupancy": s.mean_queue_occupancy, "max_queue_occupancy": s.max_queue_occupancy,
                "queue_capacity": s.queue_capacity,
                "cpu_queue_capacity": s.cpu_queue_capacity, "batches_produced": s.batches_produced,
                "consumer_wait_ms": s.consumer_wait_ms, "cpu_stage_ms": s.cpu_stage_ms,
                "device_stage_ms": s.device_stage_ms}

    def reader_meta(self, name=None):
        """The named reader's metadata as a dict, or ``{name: dict}`` for every reader."""
        cpp = self._built()
        if name is not None:
            return _meta_dict(cpp.reader_meta(name))
        return {n: _meta_dict(m) for n, m in cpp.all_reader_meta().items()}

    def epoch_size(self, name=None):
        """The named reader's padded epoch size, or ``{name: size}`` for every reader."""
        cpp = self._built()
        if name is not None:
            return cpp.epoch_size(name)
        return {n: m.epoch_size_padded for n, m in cpp.all_reader_meta().items()}


def _meta_dict(m):
    return {"epoch_size": m.epoch_size, "epoch_size_padded": m.epoch_size_padded,
            "number_of_shards": m.number_of_shards, "shard_id": m.shard_id,
            "pad_last_batch": m.pad_last_batch, "stick_to_shard": m.stick_to_shard}


def _autotune_dict(a):
    return {"auto_threads": a.auto_threads, "auto_queue_depth": a.auto_queue_depth,
            "memory_budget": a.memory_budget or None, "threads": a.threads, "max_threads": a.max_threads,
            "depth": a.depth, "max_depth": a.max_depth,
            "measured": {"batches": a.window_batches, "stage_ms": a.stage_ms, "stage_stddev_ms": a.stage_stddev_ms,
                         "period_ms": a.period_ms, "wait_ms": a.wait_ms, "slot_bytes": a.slot_bytes,
                         "output_bytes": a.output_bytes, "needed_bytes": a.needed_bytes},
            "changes": [{"batch": c.batch, "threads": c.threads, "depth": c.depth, "reason": c.reason}
                        for c in a.changes],
            "search": None if not a.auto_threads else {
                "default_threads": a.default_threads, "phase": a.search_phase, "searches": a.searches,
                "best_threads": a.best_threads, "best_batches_per_s": a.best_batches_per_s,
                "trials": [{"threads": t.threads, "batches_per_s": t.batches_per_s,
                            "wait_fraction": t.wait_fraction, "kept": t.kept} for t in a.trials]}}


def _is_auto(value, name):
    """True for the string "auto"; any other string is an error naming the argument."""
    if isinstance(value, str):
        if value == "auto":
            return True
        raise ValueError(f'{name} must be an int or "auto", got {value!r}')
    return False


def _int_arg(value, name, default):
    """An int argument (None and -1: `default`, as DALI's), rejecting other types by name."""
    if value is None:
        return default
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f'{name} must be an int or "auto", got {type(value).__name__} {value!r}') from None
    return default if v == -1 else v


def _memory_budget(value):
    if value is None:
        return 0
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"memory_budget must be a number of bytes (int), got {type(value).__name__} {value!r}") from None
    if value < 1:
        raise ValueError(f"memory_budget must be at least 1 byte (or None for no budget), got {value}")
    return value


def _close_pools(pools):
    for pool in pools:
        pool.close()


def _queue_depths(depth, exec_async):
    if isinstance(depth, dict):
        if set(depth) != {"cpu_size", "gpu_size"}:
            raise ValueError(f"prefetch_queue_depth as a dict needs exactly 'cpu_size' and 'gpu_size', "
                             f"got {sorted(depth)}")
        if not exec_async:
            raise ValueError("separate prefetch queues (prefetch_queue_depth as a dict) require exec_async=True")
        return int(depth["cpu_size"]), int(depth["gpu_size"])
    return int(depth), int(depth)


# --- @pipeline_def ---------------------------------------------------------------------------------
_PIPELINE_PARAMS = set(inspect.signature(Pipeline.__init__).parameters) - {"self"}
# pipeline_def's own arguments in DALI. enable_conditionals turns on DALI's AutoGraph rewrite of
# `if` statements on DataNodes; Sluice has no conditionals, so a pipeline that only branches on
# Python values (as DALI's EfficientNet example does) builds the same, and an `if` on a DataNode
# raises TypeError where it is written.
_DEF_PARAMS = {"enable_conditionals"}


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """Turns a graph-defining function into a pipeline factory (bare or with Pipeline arguments).

    Keyword arguments given at call time go to the Pipeline constructor when it takes them and the
    function does not (the function's own parameters win); the rest go to the function.
    """
    def decorator(func):
        func_params = inspect.signature(func).parameters
        takes_var_kw = any(p.kind == p.VAR_KEYWORD for p in func_params.values())

        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            ctor = {k: v for k, v in kwargs.items()
                    if k in _PIPELINE_PARAMS and k not in func_params}
            fn_kwargs = {k: v for k, v in kwargs.items() if k not in ctor and k not in _DEF_PARAMS}
            if not takes_var_kw:
                unknown = [k for k in fn_kwargs if k not in func_params]
                if unknown:
                    raise TypeError(f"{func.__name__}() got unexpected keyword argument(s) {unknown}: neither "
                                    f"the function nor Pipeline takes them")
            pipe = Pipeline(**{**pipeline_kwargs, **ctor})
            with pipe:
                outputs = func(*args, **fn_kwargs)
                pipe.set_outputs(*(outputs if isinstance(outputs, (list, tuple)) else (outputs,)))
            return pipe

        return create_pipeline

    return decorator(fn) if fn is not None else decorator


def _experimental_pipeline_def(fn=None, *, enable_conditionals=False, debug=False, **pipeline_kwargs):
    """DALI's ``nvidia.dali.pipeline.experimental.pipeline_def``: ``pipeline_def`` plus ``debug``
    (DALI's eager debug mode, which Sluice does not have: ``debug=True`` is an error)."""
    if debug:
        raise NotImplementedError("pipeline_def(debug=True): Sluice has no debug (eager) mode")
    return pipeline_def(fn, enable_conditionals=enable_conditionals, **pipeline_kwargs)


def _make_experimental_module():
    """``sluice.pipeline.experimental`` (DALI's EfficientNet example imports pipeline_def from it)."""
    name = f"{__name__}.experimental"
    module = sys.modules.get(name)
    if module is None:
        module = _pytypes.ModuleType(name, "DALI's experimental pipeline API: pipeline_def.")
        sys.modules[name] = module
    _experimental_pipeline_def.__name__ = "pipeline_def"
    _experimental_pipeline_def.__qualname__ = "pipeline_def"
    _experimental_pipeline_def.__module__ = name
    module.pipeline_def = _experimental_pipeline_def
    module.__all__ = ["pipeline_def"]
    return module


experimental = _make_experimental_module()

__all__ = ["Pipeline", "pipeline_def", "experimental"]
