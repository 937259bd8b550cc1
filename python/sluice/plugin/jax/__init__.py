"""JAX iterators over Sluice pipelines, as ``nvidia.dali.plugin.jax``.

``DALIGenericIterator`` returns ``{name: jax.Array}`` per step. With one pipeline the arrays are its
batches. With several: given ``sharding`` (a ``NamedSharding`` or ``PositionalSharding``), pipeline
i's batch becomes the shard on the i-th of the sharding's devices (by device id) of one global array
(``jax.make_array_from_single_device_arrays``, for automatic parallelization); without it, batches
on distinct devices make one array for ``jax.pmap`` (``jax.device_put_sharded``) and batches on one
device are stacked on a new leading axis. Host (CPU) outputs are placed on the device their pipeline
stands for (``sharding``, or the ``devices`` of ``data_iterator``). ``LastBatchPolicy.PARTIAL`` is
not supported (JAX wants fixed shapes), as in DALI.

``data_iterator`` is DALI's decorator: the decorated pipeline function, called with the pipeline's
arguments, returns an iterator; with ``sharding`` or ``devices`` it makes one pipeline per device,
each with ``device_id``, ``shard_id`` and ``num_shards`` and the global ``batch_size`` divided by the
number of devices. ``sluice.plugin.jax.clu`` has the peekable iterator. JAX is imported when an
iterator is made. ``fn.jax_function`` (DALI's operator on ``jax.Array`` batches) is in
plugin/jax_function.py.
"""
import sys as _sys
import types as _types

from ...pipeline import pipeline_def
from ..base_iterator import BaseIterator, LastBatchPolicy
from ..jax_function import jax_function

__all__ = ["DALIGenericIterator", "GenericIterator", "LastBatchPolicy", "data_iterator", "fn"]


def _jax():
    try:
        import jax
        import jax.dlpack
        import jax.numpy
        import jax.sharding
    except ImportError as e:
        raise ImportError("sluice.plugin.jax needs JAX: pip install jax") from e
    return jax


def _device_of(array):
    return next(iter(array.devices()))


class DALIGenericIterator(BaseIterator):
    """Iterates pipelines, returning ``{output_map[i]: jax.Array}``. Arguments as the PyTorch
    iterator's, without ``dynamic_shape`` and the PARTIAL last-batch policy, plus ``sharding``: a
    ``jax.sharding.NamedSharding`` or ``PositionalSharding`` over one device per pipeline, to return
    global arrays whose shard on each device is its pipeline's batch (see the module docstring)."""

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                 sharding=None, *, _devices=None):
        self._jax = _jax()
        if last_batch_policy == LastBatchPolicy.PARTIAL:
            raise ValueError("the JAX iterator does not support LastBatchPolicy.PARTIAL (JAX needs fixed shapes)")
        output_map = list(output_map)
        if len(set(output_map)) != len(output_map):
            raise ValueError(f"output_map names must be distinct, got {output_map}")
        self.output_map = output_map
        self._output_categories = set(output_map)
        n = len(pipelines) if isinstance(pipelines, (list, tuple)) else 1
        self._sharding = sharding
        self._targets = None  # the JAX device of each pipeline's batches
        if sharding is not None:
            shardings = self._jax.sharding
            if not isinstance(sharding, (shardings.NamedSharding, shardings.PositionalSharding)):
                raise TypeError(f"`sharding` should be an instance of `NamedSharding` or `PositionalSharding`, got "
                                f"{type(sharding).__name__}")
            self._targets = sorted(sharding.addressable_devices, key=lambda d: d.id)
            if len(self._targets) != n:
                raise ValueError(f"`sharding` has {len(self._targets)} devices in this process but the iterator has "
                                 f"{n} pipelines: give one pipeline per device")
        elif _devices is not None:
            self._targets = list(_devices)
        super().__init__(pipelines, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         last_batch_padded=last_batch_padded, last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)

    def _convert(self, outputs):
        if len(outputs) != len(self.output_map):
            raise ValueError(f"the pipeline has {len(outputs)} outputs but output_map names {len(self.output_map)}")
        return [self._to_jax(out) for out in outputs]

    def _to_jax(self, tensor_list):
        tensor = tensor_list.as_tensor()
        try:
            return self._jax.dlpack.from_dlpack(tensor)
        except (RuntimeError, TypeError, BufferError):
            return self._jax.numpy.asarray(tensor.as_array())

    def _next_batch(self):
        per_pipeline = super()._next_batch()
        jax = self._jax
        result = {}
        for k, name in enumerate(self.output_map):
            arrays = [outs[k] for outs in per_pipeline]
            if self._targets is not None:
                arrays = [a if _device_of(a) == d else jax.device_put(a, d) for a, d in zip(arrays, self._targets)]
            if len(arrays) == 1 and self._sharding is None:
                result[name] = arrays[0]
                continue
            if any(a.shape != arrays[0].shape for a in arrays):
                raise ValueError(f"output {name!r}: the pipelines' batches differ in shape "
                                 f"({[a.shape for a in arrays]}); shards must have one shape")
            if self._sharding is not None:
                result[name] = self._global_array(arrays)
                continue
            devices = [_device_of(a) for a in arrays]
            if len(set(devices)) == len(devices):
                result[name] = jax.device_put_sharded(arrays, devices)  # for jax.pmap
            elif len(set(devices)) == 1:
                result[name] = jax.numpy.stack(arrays)
            else:
                raise ValueError("the JAX iterator needs the pipelines' batches on distinct devices, or all on one")
        return result

    def _global_array(self, arrays):
        sharding = self._sharding
        shard_shape = arrays[0].shape
        if isinstance(sharding, self._jax.sharding.NamedSharding):
            shards = sharding.mesh.size
        else:
            shards = sharding.shape[0]
        global_shape = (shards * shard_shape[0], *shard_shape[1:])
        return self._jax.make_array_from_single_device_arrays(global_shape, sharding, arrays)


GenericIterator = DALIGenericIterator


def default_num_threads_value():
    """The ``num_threads`` data_iterator gives the pipelines when the call does not (DALI's: 4)."""
    return 4


def _data_iterator_impl(iterator_type, pipeline_fn, output_map, size, reader_name, auto_reset, last_batch_padded,
                        last_batch_policy, prepare_first_batch, sharding, devices):
    if sharding is not None and devices is not None:
        raise ValueError("Only one of `sharding` and `devices` arguments can be provided.")
    iterator_args = dict(output_map=output_map, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         last_batch_padded=last_batch_padded, last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)

    def decorator(func):
        make_pipeline = pipeline_def(func)

        def create_iterator(*args, checkpoints=None, **kwargs):
            jax = _jax()
            kwargs.setdefault("num_threads", default_num_threads_value())
            if sharding is None and devices is None:
                kwargs.setdefault("device_id", 0)
                pipe = make_pipeline(*args, checkpoint=checkpoints[0] if checkpoints else None, **kwargs)
                return iterator_type([pipe], **iterator_args)
            if "batch_size" not in kwargs:
                raise ValueError("an iterator over several devices needs `batch_size` (the global batch size, divided "
                                 "among the devices)")
            kwargs["batch_size"] = kwargs["batch_size"] // len(jax.devices())
            if devices is not None and jax.local_device_count() != jax.device_count():
                raise RuntimeError("Iterator compatible with pmapped JAX functions does not support running in "
                                   "multiprocess mode. Use `sharding` argument instead.")
            use = list(devices) if devices is not None else jax.local_devices()
            num_shards = len(use) if devices is not None else jax.device_count()
            if checkpoints and len(checkpoints) != len(use):
                raise RuntimeError(f"The number of checkpoints provided ({len(checkpoints)}) should match the number "
                                   f"of devices to use ({len(use)}).")
            pipes = [make_pipeline(*args, **kwargs, device_id=i, shard_id=device.id, num_shards=num_shards,
                                   checkpoint=checkpoints[i] if checkpoints else None)
                     for i, device in enumerate(use)]
            if sharding is not None:
                return iterator_type(pipes, sharding=sharding, **iterator_args)
            return iterator_type(pipes, _devices=use, **iterator_args)

        return create_iterator

    return decorator(pipeline_fn) if pipeline_fn is not None else decorator


def data_iterator(pipeline_fn=None, output_map=(), size=-1, reader_name=None, auto_reset=False,
                  last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                  sharding=None, devices=None):
    """DALI's decorator: ``@data_iterator(output_map=[...], ...)`` on a pipeline function (as for
    ``pipeline_def``) makes a function that, called with the pipeline's arguments (``batch_size``,
    ``num_threads`` (default 4), ``device_id`` (default 0), ``seed``, the function's own, and
    ``checkpoints``: a list from the iterator's ``checkpoints()``), returns a DALIGenericIterator.

    ``sharding`` (a ``jax.sharding.Sharding``) or ``devices`` (a list of ``jax.Device``), one of them:
    one pipeline per device (``jax.local_devices()`` for ``sharding``), called with ``device_id=i``,
    ``shard_id=device.id``, ``num_shards`` and ``batch_size`` divided by ``len(jax.devices())`` (the
    pipeline function must take ``shard_id`` and ``num_shards`` and give them to its reader); the
    iterator returns global arrays of `sharding`, or arrays for ``jax.pmap`` over `devices`. The
    other arguments are DALIGenericIterator's.
    """
    return _data_iterator_impl(DALIGenericIterator, pipeline_fn, list(output_map), size, reader_name, auto_reset,
                               last_batch_padded, last_batch_policy, prepare_first_batch, sharding, devices)


# DALI's plugin.jax.fn namespace.
fn = _types.ModuleType(__name__ + ".fn", "The functional API of sluice.plugin.jax (DALI's plugin.jax.fn).")
fn.jax_function = jax_function
_sys.modules[fn.__name__] = fn
