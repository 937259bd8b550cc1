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
"""
import copy
import enum
import functools
import inspect
import operator
import os
import random
import sys
import types as _pytypes
import warnings
import weakref

import numpy as np

from . import _sluice, current
from . import _conditionals
from ._conditionals import do_not_convert
from .errors import SluiceError
from .graph import DataNode, collect_calls
from .tensors import to_samples, wrap_batch
from . import types as _types
from .types import PipelineAPIType


class StreamPolicy(enum.Enum):
    """DALI's stream policy of the dynamic executor (``Pipeline(stream_policy=...)``). Sluice runs every
    mixed and GPU operator of a pipeline in order on the pipeline's one CUDA stream whatever the
    policy: the policy changes how DALI overlaps GPU work, never the results."""

    UNSPECIFIED = 0
    SINGLE = 1
    PER_BACKEND = 2
    PER_OPERATOR = 3


class OperatorConcurrency(enum.Enum):
    """DALI's operator concurrency policy (``Pipeline(concurrency=...)``). Sluice's executor overlaps
    the CPU stage of later iterations with the device stage of earlier ones and runs small
    independent CPU operators of one graph level side by side, whatever the value: it changes the
    schedule, never the results."""

    UNSPECIFIED = 0
    NONE = 1
    BACKEND = 2
    FULL = 3


def _same_as_default(value, default):
    return value is default or (type(value) is type(default) and value == default)


class Pipeline:
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

    # --- properties (DALI names) -------------------------------------------------------------
    batch_size = property(lambda self: self._options.batch_size)
    max_batch_size = property(lambda self: self._options.batch_size)
    num_threads = property(lambda self: "auto" if self._options.auto_threads else self._options.num_threads)
    memory_budget = property(lambda self: self._options.memory_budget or None)
    device_id = property(lambda self: self._options.device_id)
    exec_pipelined = property(lambda self: self._options.exec_pipelined)
    exec_async = property(lambda self: self._options.exec_async)
    exec_dynamic = property(lambda self: self._exec_dynamic, doc="If true, the dynamic executor is used (see "
                                                                 "the class doc for what it means in Sluice).")
    exec_separated = property(lambda self: self._exec_separated,
                              doc="If True, there are separate prefetch queues for CPU and GPU stages.")
    stream_policy = property(lambda self: self._stream_policy)
    concurrency = property(lambda self: self._concurrency)
    set_affinity = property(lambda self: self._options.set_affinity)
    max_streams = property(lambda self: -1, doc="Deprecated, unused; returns -1.")
    default_cuda_stream_priority = property(lambda self: 0, doc="Deprecated; always 0.")
    prefetch_queue_depth = property(lambda self: self._prefetch_queue_depth)
    cpu_queue_size = property(lambda self: self._options.cpu_queue_depth)
    gpu_queue_size = property(lambda self: self._options.gpu_queue_depth)
    enable_memory_stats = property(lambda self: self._options.enable_memory_stats)
    fuse_operators = property(lambda self: self._options.fuse_operators)
    py_num_workers = property(lambda self: self._py_num_workers)
    py_start_method = property(lambda self: self._py_start_method)
    is_restored_from_checkpoint = property(lambda self: self._is_restored_from_checkpoint,
                                           doc="If True, this pipeline was restored from a checkpoint.")

    @property
    def seed(self):
        return self._cpp.seed if self._cpp is not None else self._options.seed

    @property
    def num_outputs(self):
        """Number of pipeline outputs."""
        self._build_graph()
        return len(self._outputs)

    def output_dtype(self):
        """The data types declared for the outputs (``output_dtype``), one per output; None where
        any type is accepted."""
        return self._output_descs()[0]

    def output_ndim(self):
        """The numbers of dimensions declared for the outputs (``output_ndim``), one per output; None
        where any is accepted."""
        return self._output_descs()[1]

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

    def _output_descs(self):
        """(dtypes, ndims, layouts): the declared output descriptions, one per output (None: any)."""
        self._build_graph()
        return self._descs

    def _descs_for(self, n):
        descs = []
        for value, arg in ((self._output_dtype, "output_dtype"), (self._output_ndim, "output_ndim"),
                           (self._output_layout, "output_layout")):
            if isinstance(value, list):
                if len(value) != n:
                    raise SluiceError(f"Lengths of provided output descriptions do not match: the pipeline has "
                                      f"{n} outputs, {arg}={value!r} describes {len(value)}")
                descs.append(list(value))
            else:
                descs.append([value] * n)
        descs[2] = [layout or None for layout in descs[2]]  # "" declares nothing, as in DALI
        return descs

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

    # --- run methods -------------------------------------------------------------------------
    def enable_api_check(self, enable):
        """Turns the check that one pipeline uses one API type (BASIC, SCHEDULED, ITERATOR) on or off."""
        self._skip_api_check = not enable

    def _use_api(self, api):
        if self._skip_api_check:
            return
        if self._api_type is None:
            self._api_type = api
        elif self._api_type != api:
            raise SluiceError(f"Mixing pipeline API type. Currently used: {self._api_type}, but trying to use "
                              f"{api} (a pipeline cannot mix run methods: run() is the BASIC API; schedule_run(), "
                              f"outputs(), share_outputs() and release_outputs() the SCHEDULED one; the "
                              f"framework iterators use ITERATOR)")

    def run(self, cuda_stream=None, /, **pipeline_inputs):
        """Runs one iteration and returns its outputs (a tuple of TensorListCPU/TensorListGPU).

        `pipeline_inputs` (DALI's shorthand for ``feed_input``): ``run(name=batch)`` feeds the
        external_source `name` first; it needs ``prefetch_queue_depth=1`` or ``exec_pipelined=False``.
        `cuda_stream`: GPU outputs are ordered on this stream (an int handle or an object with
        ``cuda_stream``/``ptr``, as PyTorch's and CuPy's streams)."""
        if pipeline_inputs and not self._are_pipeline_inputs_possible():
            raise SluiceError(f"When using pipeline_inputs named arguments, either `prefetch_queue_depth` in "
                              f"Pipeline constructor shall be set to 1 (for both devices) or `exec_pipelined` "
                              f"shall be set to False. Received: prefetch_queue_depth={self.prefetch_queue_depth}, "
                              f"exec_pipelined={self.exec_pipelined}.")
        self._use_api(PipelineAPIType.BASIC)
        for name, value in pipeline_inputs.items():
            self.feed_input(name, value)
        self._schedule()
        return self._take(release_previous=True, cuda_stream=cuda_stream)

    def _are_pipeline_inputs_possible(self):
        if not self.exec_pipelined:
            return True
        return self._options.cpu_queue_depth <= 1 and self._options.gpu_queue_depth <= 1 and \
            not self._options.auto_queue_depth

    def schedule_run(self):
        """Schedules the next iteration (the first call fills the prefetch queue)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._schedule()

    def share_outputs(self, cuda_stream=None):
        """The next scheduled iteration's outputs; they stay valid until release_outputs() (and after:
        Sluice's buffers are reused only when no output object refers to them)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        return self._take(release_previous=False, cuda_stream=cuda_stream)

    def release_outputs(self):
        """Returns the oldest shared outputs' buffers to the pipeline."""
        self._use_api(PipelineAPIType.SCHEDULED)
        self._built().release_outputs()

    def outputs(self, cuda_stream=None):
        """The next scheduled iteration's outputs; releases the previous ones. With ``schedule_run()``
        this is DALI's SCHEDULED API (``run()`` is the two together)."""
        self._use_api(PipelineAPIType.SCHEDULED)
        return self._take(release_previous=True, cuda_stream=cuda_stream)

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

    def iter_setup(self):
        """Called before each iteration is scheduled (after the external sources' ``source`` callbacks
        gave their batches, before those are fed); override it to ``feed_input`` the iteration's data,
        as DALI's legacy pipelines do. StopIteration raised here ends the epoch."""

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
                self._prepare_iteration()
            except StopIteration:
                self._stop_pending = True
                return
            for op_name, state in self._repeat_last.items():
                if state[0] == 0 and state[1] is not None:  # nothing new fed: the last batch again
                    cpp.feed_input(op_name, *state[1])
                    state[0] += 1
            cpp.schedule_run()
            self._scheduled += 1
            for state in self._repeat_last.values():
                state[0] = max(0, state[0] - 1)

    def _take(self, release_previous, cuda_stream=None):
        cpp = self._built()
        if self._scheduled == 0 and (self._stop_pending or self._last_iter):
            self._last_iter = True
            self._stop_pending = False
            raise StopIteration
        # outputs() is release_outputs() + share_outputs(), as in DALI (and as the C++ Outputs() is): made
        # of the two here, so that outputs() and share_outputs() can be used on one pipeline (DALI's
        # SCHEDULED API), which the C++ API's own run-method check would refuse.
        if release_previous:
            cpp.release_outputs()
        batches = cpp.share_outputs()
        self._scheduled -= 1
        self._check_outputs(batches)
        if cuda_stream is not None:
            stream = _stream_handle(cuda_stream)
            for b in batches:
                if b.device == "gpu":
                    b.wait_on(stream)
        return tuple(wrap_batch(b, self.device_id) for b in batches)

    def _check_outputs(self, batches):
        """DALI's output_dtype / output_ndim / output_layout checks, on every output of every iteration."""
        if self._output_dtype is None and self._output_ndim is None and self._output_layout is None:
            return
        dtypes, ndims, layouts = self._output_descs()
        for i, b in enumerate(batches):
            where = f"pipeline output {i} ({self._edges.get(self._outputs[i], '?')})"
            if dtypes[i] is not None:
                got = _types.dtype_from_name(b.dtype)
                if got != dtypes[i]:
                    raise SluiceError(f"{where}: the data type {got.name} does not match the declared "
                                      f"output_dtype {dtypes[i].name}")
            if ndims[i] is not None and b.num_samples > 0:
                got = len(b.shape(0))
                if got != ndims[i]:
                    raise SluiceError(f"{where}: the number of dimensions {got} does not match the declared "
                                      f"output_ndim {ndims[i]}")
            if layouts[i] is not None and b.layout != layouts[i]:
                raise SluiceError(f"{where}: the layout {b.layout!r} does not match the declared output_layout "
                                  f"{layouts[i]!r}")

    def _prepare_iteration(self):
        """One iteration's inputs, as DALI orders them: every source is asked first (a StopIteration
        from one leaves none fed), then iter_setup(), then the sources' batches are fed."""
        fed = []
        for group in self._sources:
            try:
                fed.append((group, group.next_batch(self.batch_size)))
            except StopIteration:
                raise
            except Exception as e:
                e.add_note(f"(raised by the source of external_source '{group.op_names[0]}')")
                raise
        self.iter_setup()
        for group, batches in fed:
            for op_name, arrays, layout in zip(group.op_names, batches, group.layout):
                self._cpp.feed_input(op_name, arrays, layout or "")

    def feed_input(self, data_node, data, layout=None, cuda_stream=None, use_copy_kernel=False):
        """Feeds one batch to an external_source without a `source` (by name or DataNode), or
        encoded videos to an experimental.inputs.video (each sample one video, uint8 1-D). The data
        is copied at once (`cuda_stream` and `use_copy_kernel` are accepted for DALI compatibility)."""
        name = data_node.source_call.name if isinstance(data_node, DataNode) else data_node
        cpp = self._built()
        if name not in self._all_sources and name not in self._fed_videos:
            raise SluiceError(f"there is no external_source or experimental.inputs.video named '{name}' "
                              f"in the pipeline")
        group = self._all_sources.get(name)
        if group is not None and group.source is not None:
            raise SluiceError(f"Cannot use `feed_input` on the external source '{name}' with a `source` argument "
                              f"specified.")
        arrays, layout = to_samples(data), layout or ""
        cpp.feed_input(name, arrays, layout)
        state = self._repeat_last.get(name)
        if state is not None:
            state[0] += 1
            state[1] = ([np.array(a, copy=True, order="C") for a in arrays], layout)

    def reset(self):
        """After StopIteration from an external source: starts the next epoch. Otherwise a no-op
        (readers run on across epochs; batches already prefetched belong to the next one). As in
        DALI, a non-cycling iterable source is not restarted (see sluice.external_source)."""
        if not self._last_iter and not self._stop_pending:
            return
        if self._scheduled:
            return  # batches from before the end remain to be taken
        self._last_iter = False
        self._stop_pending = False
        self._first_iter = True
        for group in self._groups:
            group.reset()
        if self._cpp is not None:
            self._cpp.reset()

    # --- introspection -----------------------------------------------------------------------
    def external_source_shm_statistics(self):
        """The shared memory the parallel external sources' workers used, as DALI's ``{"capacities":
        [...], "per_sample_capacities": [...]}``. Sluice's workers write each task's result into a
        block of its own size (DALI reuses slots grown as needed): the lists hold, per worker of each
        parallel source, the size in bytes of the block of the last batch it delivered, and that
        size divided by the samples in it. Empty without parallel sources or before any batch."""
        capacities, per_sample = [], []
        for pool in self._pools or ():
            for worker in sorted(pool.last_blocks):
                size, samples = pool.last_blocks[worker]
                capacities.append(size)
                per_sample.append(size // max(samples, 1))
        return {"capacities": capacities, "per_sample_capacities": per_sample}

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


_ENUM_ARGS = {"stream_policy": StreamPolicy, "concurrency": OperatorConcurrency}
_CTOR_DEFAULTS = {k: p.default for k, p in inspect.signature(Pipeline.__init__).parameters.items() if k != "self"}


def _checkpoint_text(checkpoint):
    """A checkpoint as the C++ core reads it: the str Pipeline.checkpoint() returned, or its bytes (as
    read from a file in binary mode, or handed over as DALI's iterators hand theirs)."""
    if checkpoint is None or isinstance(checkpoint, str):
        return checkpoint
    if isinstance(checkpoint, (bytes, bytearray, memoryview)):
        try:
            return bytes(checkpoint).decode("utf-8")
        except UnicodeDecodeError:
            raise SluiceError("checkpoint: not a Sluice checkpoint (bytes that are not UTF-8 text; a DALI "
                              "checkpoint cannot be restored by Sluice)") from None
    raise TypeError(f"checkpoint must be the str (or bytes) that Pipeline.checkpoint() returned, got "
                    f"{type(checkpoint).__name__}")


def _check_output_dtype(value):
    items = value if isinstance(value, (list, tuple)) else [value]
    for dtype in items:
        if not isinstance(dtype, (_types.DALIDataType, type(None))):
            raise TypeError(f"`output_dtype` must be either: a value from sluice.types.DALIDataType, a list of "
                            f"these or None. Found type {type(dtype)}.")
        if dtype == _types.NO_TYPE:
            raise ValueError(f"`output_dtype` can't be a types.NO_TYPE. Found {dtype}.")
    return list(value) if isinstance(value, (list, tuple)) else value


def _check_output_ndim(value):
    items = value if isinstance(value, (list, tuple)) else [value]
    for ndim in items:
        if ndim is not None and (not isinstance(ndim, int) or isinstance(ndim, bool)):
            raise TypeError(f"`output_ndim` must be either: an int, a list of ints or None. Found type {type(ndim)}.")
        if ndim is not None and ndim < 0:
            raise ValueError(f"`output_ndim` must be non-negative. Found value {ndim}.")
    return list(value) if isinstance(value, (list, tuple)) else value


def _check_output_layout(value):
    items = value if isinstance(value, (list, tuple)) else [value]
    for layout in items:
        if not isinstance(layout, (str, type(None))):
            raise TypeError(f"`output_layout` must be either: a string, a list of strings or None. Found type "
                            f"{type(layout)}.")
    return list(value) if isinstance(value, (list, tuple)) else value


def _stream_handle(stream):
    """A CUDA stream handle from an int or a framework's stream object (PyTorch ``cuda_stream``, CuPy ``ptr``)."""
    for attr in ("cuda_stream", "ptr", "handle"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    try:
        return operator.index(stream)
    except TypeError:
        raise TypeError(f"cuda_stream must be a stream handle (int) or a stream object with `cuda_stream` or "
                        f"`ptr`, got {type(stream).__name__}") from None


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

__all__ = ["Pipeline", "pipeline_def", "experimental", "StreamPolicy", "OperatorConcurrency", "do_not_convert"]
