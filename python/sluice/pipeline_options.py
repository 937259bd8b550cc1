"""The Pipeline constructor's options: DALI's scheduling enums, the normalisation of DALI's spellings
of the arguments, and the properties that report them.

:class:`StreamPolicy` and :class:`OperatorConcurrency` are the types of ``stream_policy`` and
``concurrency`` (also importable from ``sluice.pipeline``). The helpers turn DALI's spellings
(None and -1 defaults, ``"auto"``, ``prefetch_queue_depth`` as a dict, a checkpoint as bytes) into
the values of the C++ ``PipelineOptions``, raising TypeError or ValueError (SluiceError for a
checkpoint that is not Sluice's) that names the argument. :class:`PipelineOptionProperties` is the
part of :class:`sluice.pipeline.Pipeline` that reads the options back under DALI's property names;
it expects the attributes the Pipeline constructor sets (``_options`` and the ``_``-prefixed
arguments) and is not used on its own.
"""
import enum
import operator

from .errors import SluiceError


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


class PipelineOptionProperties:
    """The constructor's options of a :class:`sluice.pipeline.Pipeline`, read back (DALI's names)."""

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


def _queue_depths(depth, exec_async):
    if isinstance(depth, dict):
        if set(depth) != {"cpu_size", "gpu_size"}:
            raise ValueError(f"prefetch_queue_depth as a dict needs exactly 'cpu_size' and 'gpu_size', "
                             f"got {sorted(depth)}")
        if not exec_async:
            raise ValueError("separate prefetch queues (prefetch_queue_depth as a dict) require exec_async=True")
        return int(depth["cpu_size"]), int(depth["gpu_size"])
    return int(depth), int(depth)
