"""Pipeline: the graph of operators, its build, and the run methods (DALI's Python Pipeline).

Two ways to define the graph, giving identical pipelines:

* ``with pipe: ... pipe.set_outputs(a, b)`` (or ``@pipeline_def``), calling ``fn``/``ops``;
* subclassing and overriding ``define_graph()``, which ``build()`` calls.

``pipeline_def`` (also ``pipeline.experimental.pipeline_def``, as DALI's examples import it) turns a
graph-defining function into a pipeline factory.

Run methods, with DALI's API types: ``run()`` (the BASIC API: one iteration scheduled and taken),
the SCHEDULED API ``schedule_run()`` with ``outputs()`` (which releases the previous outputs) or
``share_outputs()``/``release_outputs()``, and the framework iterators (the ITERATOR API). One
pipeline uses one API type; mixing them raises an error (``enable_api_check(False)`` turns the check
off, as in DALI). The first ``schedule_run()`` fills the prefetch queue (``prefetch_queue_depth``
iterations); each scheduled iteration first asks every external source with a ``source`` for its
batch, then calls ``iter_setup()`` (where legacy pipelines call ``feed_input``), then feeds them.

``serialize()`` / ``Pipeline.deserialize()`` / ``deserialize_and_build()`` store and rebuild the
graph and the options in Sluice's own format (see ``sluice.serialization``);
``save_graph_to_dot_file()`` draws the graph.

The Pipeline class is assembled from parts, one module each: this module holds the constructor,
the graph's definition and build, serialization and ``pipeline_def``; ``pipeline_options`` the
enums and the normalisation of the constructor's arguments (and the properties reporting them),
``pipeline_outputs`` the declared output descriptions and their check, ``pipeline_run`` the run
methods and ``feed_input``, ``pipeline_introspection`` the statistics, checkpoints and reader
metadata.
"""
import copy
import functools
import inspect
import os
import random
import sys
import types as _pytypes
import warnings
import weakref

from . import _sluice, current
from . import _conditionals
from ._conditionals import do_not_convert
from .errors import SluiceError
from .graph import DataNode, collect_calls
from .pipeline_introspection import PipelineIntrospection
from .pipeline_options import (OperatorConcurrency, PipelineOptionProperties, StreamPolicy, _checkpoint_text,
                               _int_arg, _is_auto, _memory_budget, _queue_depths, _same_as_default)
from .pipeline_outputs import PipelineOutputChecks, _check_output_dtype, _check_output_layout, _check_output_ndim
from .pipeline_run import PipelineRunMethods


class Pipeline(PipelineOptionProperties, PipelineOutputChecks, PipelineRunMethods, PipelineIntrospection):
    """A graph of operators and its executor, with DALI 2.4's constructor arguments.

    ``batch_size``, ``num_threads`` (None/-1: one per CPU; ``"auto"``: tuned), ``device_id``
    (None/-1: CPU only; any id is accepted for a graph without GPU operators), ``seed`` (None: random;
    a negative seed warns and means None, as in DALI), ``exec_pipelined``, ``prefetch_queue_depth``
    (int, ``"auto"``, or ``{"cpu_size": x, "gpu_size": y}`` with ``exec_async``), ``exec_async``,
    ``bytes_per_sample`` (output presizing hint), ``set_affinity``
    (``DALI_AFFINITY_MASK``/``SLUICE_AFFINITY_MASK``), ``enable_memory_stats``,
    ``enable_checkpointing`` and ``checkpoint`` (below), ``py_num_workers``, ``py_start_method`` and
    ``py_callback_pickler`` (the parallel external sources' worker processes; the pickler pickles
    their callbacks with ``"spawn"``).

    ``output_dtype``, ``output_ndim``, ``output_layout`` (one value for every output, or a list with
    one per output, None a wildcard): every output of every iteration is checked against them and a
    mismatch raises SluiceError (a RuntimeError, as DALI's).

    ``exec_dynamic`` (None: True when ``exec_pipelined`` and ``exec_async`` and no separate queues,
    as DALI): Sluice has one executor; its outputs stay valid after ``release_outputs()`` as those of
    DALI's dynamic executor, but a CPU operator cannot read GPU data (such a graph is rejected at
    build). ``experimental_exec_dynamic`` is its deprecated alias. ``stream_policy``
    (:class:`StreamPolicy`) and ``concurrency`` (:class:`OperatorConcurrency`) are accepted and
    reported by their properties; they change only scheduling (see the classes). ``max_streams`` and
    ``default_cuda_stream_priority`` are deprecated in DALI and have no effect (a warning when given).

    Sluice only: ``fuse_operators`` (default True: a CPU ``resize`` read only by a
    ``crop_mirror_normalize`` runs as one step per sample without materialising the resized batch;
    identical results, and ``executor_statistics()`` then has one entry
    ``"resize#0+crop_mirror_normalize#0"``) and ``memory_budget`` (bytes, for the autotuner).

    Checkpointing as DALI's: with ``enable_checkpointing=True``, ``checkpoint()`` returns (and
    writes to ``filename``) where the pipeline stands after the last batch taken; a pipeline
    defined the same way and built with ``checkpoint=`` that text (str, or bytes as read from a
    file) continues with the batches this one would have returned next (readers' positions,
    shuffling, random operators; the checkpoint's seed replaces ``seed``). External sources' data is
    the caller's to restore.
    """

    def __init__(self, batch_size=None, num_threads=None, device_id=None, seed=None, exec_pipelined=True,
                 prefetch_queue_depth=2, exec_async=True, bytes_per_sample=0, set_affinity=False,
                 max_streams=None, default_cuda_stream_priority=None, *, enable_memory_stats=False,
                 enable_checkpointing=False, checkpoint=None, py_num_workers=1, py_start_method="fork",
                 py_callback_pickler=None, output_dtype=None, output_ndim=None, output_layout=None,
                 exec_dynamic=None, experimental_exec_dynamic=None, stream_policy=None, concurrency=None,
                 fuse_operators=True, memory_budget=None):
        given = dict(locals())
        del given["self"]
        # The arguments given other than as their defaults: deserialize_and_build() lets them
        # override the serialized pipeline's.
        self._given_args = {k: v for k, v in given.items() if not _same_as_default(v, _CTOR_DEFAULTS[k])}

        if experimental_exec_dynamic is not None:
            warnings.warn("experimental_exec_dynamic is deprecated, please use exec_dynamic instead", Warning,
                          stacklevel=2)
            exec_dynamic = experimental_exec_dynamic
        if default_cuda_stream_priority is not None:
            warnings.warn("The `default_cuda_stream_priority` is deprecated and has no effect.", Warning,
                          stacklevel=2)
        if max_streams is not None:
            warnings.warn("The `max_streams` is deprecated and has no effect.", Warning, stacklevel=2)
        if seed is not None and seed < 0:
            warnings.warn("The use of negative seed to use automatic seed asignment is deprecated. Use `None` "
                          "instead.", stacklevel=2)
            seed = None
        checkpoint = _checkpoint_text(checkpoint)
        if py_callback_pickler is not None and py_start_method == "fork":
            raise ValueError("``py_callback_pickler`` should not be set when 'fork' start method is used.")
        separated = isinstance(prefetch_queue_depth, dict)
        if exec_dynamic is None and exec_pipelined and exec_async and not separated:
            exec_dynamic = True
        if exec_dynamic and separated:
            raise ValueError("exec_dynamic=True is not compatible with separated CPU/GPU prefetch queues "
                             "(prefetch_queue_depth as a dict): separated execution requires exec_dynamic=False")
        for value, cls, arg in ((stream_policy, StreamPolicy, "stream_policy"),
                                (concurrency, OperatorConcurrency, "concurrency")):
            if value is not None and not isinstance(value, cls):
                raise TypeError(f"`{arg}` must be a sluice.pipeline.{cls.__name__} or None, got {value!r}")
        self._output_dtype = _check_output_dtype(output_dtype)
        self._output_ndim = _check_output_ndim(output_ndim)
        self._output_layout = _check_output_layout(output_layout)

        # The C++ PipelineOptions, validated by the C++ Pipeline at build(). Python translates only
        # DALI's spellings: None and -1 defaults, and prefetch_queue_depth as a dict.
        o = self._options = _sluice.PipelineOptions()
        o.batch_size = -1 if batch_size is None else int(batch_size)
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
        self._exec_separated = separated
        self._exec_dynamic = exec_dynamic
        self._stream_policy = stream_policy
        self._concurrency = concurrency
        self._py_num_workers = py_num_workers
        self._py_start_method = py_start_method
        self._py_callback_pickler = py_callback_pickler

        self._outputs = None        # DataNodes given to set_outputs / returned by define_graph
        self._recorded = []         # calls made while this pipeline was current (for `preserve`)
        self._calls = None          # every call of the graph, in order (made by _build_graph())
        self._edges = {}            # DataNode -> the C++ pipeline's edge name (made by build())
        self._pools = None          # the parallel external sources' worker pools (start_py_workers())
        self._cpp = None            # the C++ pipeline, made by build()
        self._groups = []           # every ExternalSourceGroup of the graph, in graph order
        self._sources = []          # ExternalSourceGroups with a `source`, in graph order
        self._all_sources = {}      # external_source op name -> group (for feed_input)
        self._fed_videos = set()    # experimental.inputs.video op names (for feed_input)
        self._repeat_last = {}      # op name -> [batches fed and not yet used, (last arrays, layout) or None]
        self._api_type = None
        self._skip_api_check = False
        self._first_iter = True     # the next schedule_run() fills the prefetch queue
        self._scheduled = 0         # iterations scheduled, not yet taken
        self._stop_pending = False  # an external source raised StopIteration
        self._last_iter = False     # StopIteration was raised to the caller; reset() restarts
        self._descs = None          # the declared output descriptions (made by _build_graph())
        self._is_restored_from_checkpoint = False
        self._deserialized = False

    # --- properties (DALI names; those of the constructor's options: PipelineOptionProperties) ----
    @property
    def seed(self):
        return self._cpp.seed if self._cpp is not None else self._options.seed

    @property
    def num_outputs(self):
        """Number of pipeline outputs."""
        self._build_graph()
        return len(self._outputs)

    # --- graph definition --------------------------------------------------------------------
    @staticmethod
    def current():
        """The pipeline of the innermost ``with pipe:`` block (or being built), or None."""
        return current.current()

    @staticmethod
    def push_current(pipeline):
        """Makes `pipeline` current (as ``with pipeline:``); ``pop_current()`` restores the previous one."""
        prev = current.current()
        current.push(pipeline)
        return prev

    @staticmethod
    def pop_current():
        """Restores the pipeline that was current before the last ``push_current()``."""
        current.pop()

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
        if self._cpp is not None or self._calls is not None:
            raise SluiceError("cannot change the outputs of a pipeline whose graph was built (by build(), "
                              "serialize() or start_py_workers())")
        if len(outputs) == 1 and isinstance(outputs[0], (list, tuple)):
            outputs = tuple(outputs[0])
        for i, out in enumerate(outputs):
            if not isinstance(out, DataNode):
                raise TypeError(f"pipeline output {i} must be a DataNode, got {type(out).__name__}")
        self._outputs = list(outputs)

    # --- build -------------------------------------------------------------------------------
    def _build_graph(self, define_graph=None):
        """The Python side of the build: the outputs (define_graph() if set_outputs() was not called),
        every operator call they need, the external sources. Idempotent."""
        if self._calls is not None:
            return
        if define_graph is not None and self._outputs is not None:
            raise SluiceError("Duplicate graph definition - `define_graph` argument should not be specified when "
                              "graph was defined with a call to `set_outputs`.")
        if self._outputs is None:
            with self:
                outs = (define_graph or self.define_graph)()
            self.set_outputs(*(outs if isinstance(outs, (list, tuple)) else (outs,)))
        calls = collect_calls(self._outputs, [c for c in self._recorded if c.preserve()])
        descs = self._descs_for(len(self._outputs))  # the declared descriptions must fit the outputs
        groups = []
        for call in calls:
            group = call.external_source
            if group is not None and group not in groups:
                groups.append(group)
                for op_name in group.op_names:
                    self._all_sources[op_name] = group
                    if group.repeat_last:
                        self._repeat_last[op_name] = [0, None]
        if any(g.parallel for g in groups) and (not isinstance(self._py_num_workers, int)
                                                or isinstance(self._py_num_workers, bool)
                                                or self._py_num_workers <= 0):
            raise SluiceError(f"The pipeline contains `fn.external_source` with `parallel` argument specified to "
                              f"True. However, the `py_num_workers` was set to `{self._py_num_workers}`. The "
                              f"external source cannot run in parallel mode without Python workers pool. Please "
                              f"specify the number of `py_num_workers` to a positive integer or set the `parallel` "
                              f"parameter to False in external sources in the pipeline.")
        self._groups = groups
        self._sources = [g for g in groups if g.source is not None]
        self._fed_videos = {c.name for c in calls if c.schema.name == "experimental.inputs.video" and c.name}
        self._descs = descs
        self._calls = calls

    def start_py_workers(self):
        """Starts the worker processes of the parallel external sources (``parallel=True``). ``build()``
        calls it; call it yourself before anything creates a CUDA context when several pipelines
        fork workers (``py_start_method="fork"``), as in DALI."""
        self._build_graph()
        if self._pools is not None:
            return
        pools = [g.start_pool(self._py_num_workers, self._py_start_method, self._py_callback_pickler)
                 for g in self._groups if g.parallel]
        self._pools = pools
        if pools:
            weakref.finalize(self, _close_pools, pools)

    def build(self):
        """Creates the C++ pipeline from the graph. Idempotent."""
        if self._cpp is not None:
            return
        # Parallel external sources' workers start before the C++ pipeline (and its threads) exist.
        self.start_py_workers()
        calls = self._calls
        options = copy.copy(self._options)
        if not any(c.device != "cpu" for c in calls):
            options.device_id = -1  # a CPU-only graph never touches CUDA, whatever device_id says
        cpp = _sluice.Pipeline(options)  # validates the options
        edges = {}
        for call in calls:
            call.add_to(cpp, edges)
        cpp.set_outputs([edges[n] for n in self._outputs])
        cpp.build()
        self._edges = edges
        self._cpp = cpp
        self._is_restored_from_checkpoint = options.checkpoint is not None
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

    # --- serialization -----------------------------------------------------------------------
    def serialize(self, define_graph=None, filename=None):
        """The pipeline's definition (graph and constructor options, with its seed) as bytes, in
        Sluice's own versioned format (DALI's is a Protobuf; see ``sluice.serialization``); also written
        to `filename` if given. ``Pipeline.deserialize`` rebuilds a pipeline that gives the same
        outputs batch for batch. As in DALI, the state is not included: pass a ``checkpoint()`` to
        ``deserialize(..., checkpoint=...)`` for that. A pipeline holding Python code
        (``python_function`` and the function operators built on it, an ``external_source`` with a
        ``source``) cannot be serialized: SluiceError names the operator.

        `define_graph` is DALI's deprecated way to give the graph-defining function here."""
        from . import serialization
        if define_graph is not None and not callable(define_graph):
            raise TypeError("Provided `define_graph` argument is not callable." +
                            (" Didn't you want to write `.serialize(filename=...)`?"
                             if isinstance(define_graph, str) else ""))
        self._build_graph(define_graph)
        if self._cpp is None and self._options.seed < 0:
            # Fix the random seed now, so that this pipeline, once built, and the deserialized one agree.
            self._options.seed = random.SystemRandom().getrandbits(32)
        data = serialization.dumps(self)
        if filename is not None:
            with open(filename, "wb") as f:
                f.write(data)
        return data

    @classmethod
    def deserialize(cls, serialized_pipeline=None, filename=None, **kwargs):
        """A pipeline, built, from ``serialize()``'s data (`serialized_pipeline`, bytes or str) or from
        the file `filename` (exactly one of them). `kwargs` are Pipeline constructor arguments that
        replace the serialized ones (e.g. ``checkpoint=`` to resume where a checkpoint was taken)."""
        from . import serialization
        if (serialized_pipeline is None) == (filename is None):
            raise ValueError("serialized_pipeline and filename arguments are mutually exclusive. Precisely one of "
                             "them should be defined.")
        if filename is not None:
            with open(filename, "rb") as f:
                serialized_pipeline = f.read()
        doc = serialization.loads(serialized_pipeline)
        unknown = sorted(set(kwargs) - set(_CTOR_DEFAULTS))
        if unknown:
            raise TypeError(f"Pipeline.deserialize() got unexpected keyword argument(s) {unknown}")
        pipe = cls.__new__(cls)
        Pipeline.__init__(pipe, **{**serialization.constructor_args(doc, _ENUM_ARGS), **kwargs})
        serialization.restore_graph(pipe, doc)
        pipe._deserialized = True
        pipe.build()
        return pipe

    def deserialize_and_build(self, serialized_pipeline):
        """Replaces this pipeline's graph with the serialized one and builds it (DALI's older API).
        The constructor arguments this pipeline was given (other than their defaults) replace the
        serialized ones."""
        from . import serialization
        if self._cpp is not None or self._calls is not None:
            raise SluiceError("deserialize_and_build() needs a pipeline whose graph is not built yet")
        doc = serialization.loads(serialized_pipeline)
        Pipeline.__init__(self, **{**serialization.constructor_args(doc, _ENUM_ARGS), **self._given_args})
        serialization.restore_graph(self, doc)
        self._deserialized = True
        self.build()

    def save_graph_to_dot_file(self, filename, *, show_tensors=False, show_ids=None, use_colors=False):
        """Writes the graph (as defined: before Sluice's fusion passes) in Graphviz's dot language:
        one node per operator (its instance name and schema), and with `show_tensors` one node per
        data edge between them; `use_colors` colours the nodes by device (cpu, mixed, gpu).
        `show_ids` is deprecated in DALI and has no effect. Builds the pipeline."""
        from . import serialization
        self.build()
        if show_ids is not None:
            warnings.warn('The argument "show_ids" is deprecated because it no longer has any effect.\n'
                          'It will be removed from future releases.', DeprecationWarning, stacklevel=2)
        text = serialization.to_dot(self._calls, self._outputs, self._edges, show_tensors=show_tensors,
                                    use_colors=use_colors)
        with open(filename, "w", encoding="utf-8") as f:
            f.write(text)


_ENUM_ARGS = {"stream_policy": StreamPolicy, "concurrency": OperatorConcurrency}
_CTOR_DEFAULTS = {k: p.default for k, p in inspect.signature(Pipeline.__init__).parameters.items() if k != "self"}


def _close_pools(pools):
    for pool in pools:
        pool.close()


# --- @pipeline_def ---------------------------------------------------------------------------------
_PIPELINE_PARAMS = set(inspect.signature(Pipeline.__init__).parameters) - {"self"}
# pipeline_def's own arguments in DALI. enable_conditionals (also given when the factory is called)
# turns on conditionals: `if`/`elif`/`else`, `and`, `or`, `not` on DataNodes, per sample (the
# function is rewritten by sluice._conditionals).
_DEF_PARAMS = {"enable_conditionals"}


def pipeline_def(fn=None, *, enable_conditionals=False, **pipeline_kwargs):
    """Turns a graph-defining function into a pipeline factory (bare or with Pipeline arguments).

    Keyword arguments given at call time go to the Pipeline constructor when it takes them and the
    function does not (the function's own parameters win); the rest go to the function.
    ``enable_conditionals=True`` (here or at call time) makes ``if``/``elif``/``else`` with a DataNode
    condition and ``and``/``or``/``not`` on DataNodes work per sample, as DALI's conditionals
    (see ``sluice._conditionals``).
    """
    def decorator(func):
        if getattr(func, "_sluice_do_not_convert", False):
            raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")
        func_params = inspect.signature(func).parameters
        takes_var_kw = any(p.kind == p.VAR_KEYWORD for p in func_params.values())

        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            conditionals_on = kwargs.get("enable_conditionals", enable_conditionals)
            ctor = {k: v for k, v in kwargs.items()
                    if k in _PIPELINE_PARAMS and k not in func_params}
            fn_kwargs = {k: v for k, v in kwargs.items()
                         if k not in ctor and (k not in _DEF_PARAMS or k in func_params)}
            if not takes_var_kw:
                unknown = [k for k in fn_kwargs if k not in func_params]
                if unknown:
                    raise TypeError(f"{func.__name__}() got unexpected keyword argument(s) {unknown}: neither "
                                    f"the function nor Pipeline takes them")
            pipe = Pipeline(**{**pipeline_kwargs, **ctor})
            if conditionals_on:
                pipe_func = _conditionals.convert_pipeline_function(func)
                pipe._conditionals_enabled = True
                pipe._condition_stack = _conditionals.ConditionStack()
            else:
                pipe_func = func
            with pipe:
                try:
                    outputs = pipe_func(*args, **fn_kwargs)
                    if conditionals_on:
                        pipe._condition_stack.finish(outputs)
                finally:
                    pipe._condition_stack = None  # the scopes are closed; later calls are not scoped
                pipe.set_outputs(*(outputs if isinstance(outputs, (list, tuple)) else (outputs,)))
            return pipe

        create_pipeline._is_pipeline_def = True
        return create_pipeline

    return decorator(fn) if fn is not None else decorator


def _make_experimental_module():
    """``sluice.pipeline.experimental`` (DALI's EfficientNet example imports pipeline_def from it)."""
    name = f"{__name__}.experimental"
    module = sys.modules.get(name)
    if module is None:
        module = _pytypes.ModuleType(name, "DALI's experimental pipeline API: pipeline_def.")
        sys.modules[name] = module
    module.__all__ = ["pipeline_def"]  # installed by sluice.experimental.pipeline_def (it needs debug mode)
    return module


experimental = _make_experimental_module()

__all__ = ["Pipeline", "pipeline_def", "experimental", "StreamPolicy", "OperatorConcurrency", "do_not_convert"]
