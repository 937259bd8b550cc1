"""jax_function: a function on ``jax.Array`` batches as a pipeline operator (DALI's
``nvidia.dali.plugin.jax.fn.jax_function``).

``sluice.plugin.jax.fn.jax_function(function=None, num_outputs=1, output_layouts=None, sharding=None,
device=None, preserve=True)`` turns ``function`` into a function of DataNodes, as a decorator
(with or without arguments) or called directly::

    @jax_function
    @jax.jit
    @jax.vmap
    def flip_horizontal(image):          # one HWC image; vmap makes it take the batch
        return image[:, ::-1, :]

    flipped = flip_horizontal(images)    # in a pipeline definition

As in DALI, each input arrives as one ``jax.Array`` holding the whole batch (leading extent =
samples), so an input's samples must all have one shape (else an error naming the input); the
function returns ``num_outputs`` arrays (one array for 1, a tuple for more, None for 0), each a
single-device CPU array whose leading extent is the batch size (else an error naming the output);
each row becomes a sample. ``output_layouts``: one layout for every output, or a list of exactly
``num_outputs`` (the batch extent is not part of it); without it, output k takes input k's layout
when their sample ranks match (as DALI). ``sharding``: a ``jax.sharding.Sharding``;
the inputs are then global arrays of that sharding (the process must see one local device) and each
output is read from its one addressable shard, as in DALI.

Built on ``python_function`` (the same C++ operator; the batch is stacked from python_function's
NumPy copies and handed to JAX by DLPack). Differences from DALI: the CPU path only (Sluice has no
JAX GPU path; ``device="gpu"`` is an error naming ``device``; DALI 2.4 runs the CPU path too, and
needs JAX 0.6); the operator is never pruned (``preserve=False`` is accepted, as python_function keeps every call). An
exception in the function fails ``pipe.run()`` with its traceback.
"""
import functools

import numpy as np

from ..errors import ArgumentError
from ..python_function import ReturnError, _layouts, instance_name, python_function

__all__ = ["jax_function"]

_OP = "jax_function"


def _jax():
    try:
        import jax
        import jax.dlpack
        import jax.numpy
        import jax.sharding
    except ImportError as e:
        raise ImportError("sluice.plugin.jax.fn.jax_function needs JAX: pip install jax") from e
    return jax


def _as_jax(jax, batch):
    try:
        return jax.dlpack.from_dlpack(batch)  # no copy of the stacked batch
    except (TypeError, BufferError, RuntimeError, ValueError):  # e.g. bool, which NumPy 1.24 cannot export
        return jax.numpy.asarray(batch)


def _stack(samples, k):
    shapes = {a.shape for a in samples}
    if len(shapes) > 1:
        raise ReturnError(f"{_OP}: JAX function inputs must be batches of uniform shape, so that the input batch can "
                          f"be represented as a tensor. The input at index {k} is a batch of samples with different "
                          f"shapes: {sorted(shapes)}")
    return np.stack(samples) if samples else np.zeros((0,))


def _with_sharding(jax, function, sharding):
    """DALI's: the inputs as global arrays of `sharding`, the outputs read from their one local shard."""
    def as_sharded(array):
        devices = sharding.mesh.size if isinstance(sharding, jax.sharding.NamedSharding) else len(sharding.device_set)
        return jax.make_array_from_single_device_arrays((devices * array.shape[0], *array.shape[1:]), sharding,
                                                        [array])

    def local(array, k):
        shards = [s.data for s in array.addressable_shards]
        if len(shards) != 1:
            raise ReturnError(f"{_OP}: output {k} has {len(shards)} addressable shards, expected exactly one")
        return shards[0]

    def inner(*arrays):
        out = function(*(as_sharded(a) for a in arrays))
        if out is None:
            return None
        out = out if isinstance(out, (tuple, list)) else (out,)
        return tuple(local(a, k) for k, a in enumerate(out))
    return inner


def _to_batch(jax, value, k, n):
    if not isinstance(value, jax.Array):
        raise ReturnError(f"{_OP}: output {k} is a {type(value).__name__}, expected a jax.Array")
    devices = list(value.devices())
    if len(devices) != 1:
        raise ReturnError(f"{_OP}: output {k} is split across {len(devices)} devices, expected a single-device array")
    if devices[0].platform != "cpu":
        raise ReturnError(f"{_OP}: output {k} resides on a device of kind `{devices[0].platform}`, expected `cpu`")
    if value.ndim < 1:
        raise ReturnError(f"{_OP}: the function should return a tensor representing a batch of samples. Got a 0D "
                          f"tensor for output at index {k}.")
    if value.shape[0] != n:
        raise ReturnError(f"{_OP}: the function should return a tensor representing a batch of samples. The leftmost "
                          f"dimension should match the current batch size of {n}, but the output at index {k} has "
                          f"shape of {tuple(value.shape)}.")
    return np.asarray(value)


def _batch_wrapper(jax, function, num_outputs):
    def call(*inputs):
        n = len(inputs[0]) if inputs else 0
        out = function(*(_as_jax(jax, _stack(list(samples), k)) for k, samples in enumerate(inputs)))
        outs = () if out is None else tuple(out) if isinstance(out, (tuple, list)) else (out,)
        if len(outs) != num_outputs:
            raise ReturnError(f"{_OP}: the function was expected to return (a tuple of) `num_outputs={num_outputs}` "
                              f"outputs, but returned {len(outs)}.")
        arrays = [_to_batch(jax, v, k, n) for k, v in enumerate(outs)]
        if num_outputs == 0:
            return None
        return arrays[0] if num_outputs == 1 else tuple(arrays)
    return call


def _check(jax, num_outputs, output_layouts, sharding, device):
    if device not in (None, "cpu"):
        raise ArgumentError(f"{_OP}: only device='cpu' is supported (Sluice runs JAX on the CPU), got {device!r}",
                            op=_OP, argument="device")
    if not isinstance(num_outputs, (int, np.integer)) or isinstance(num_outputs, bool) or num_outputs < 0:
        raise ArgumentError(f"{_OP}: num_outputs must be a non-negative int, got {num_outputs!r}", op=_OP,
                            argument="num_outputs")
    layouts = _layouts(output_layouts, int(num_outputs))
    if output_layouts is not None and not isinstance(output_layouts, str) and len(layouts) != num_outputs:
        raise ArgumentError(f"{_OP}: The number of `output_layouts` ({len(layouts)}) must match the `num_outputs` "
                            f"argument ({num_outputs}).", op=_OP, argument="output_layouts")
    if sharding is not None:
        if not isinstance(sharding, jax.sharding.Sharding):
            raise ArgumentError(f"{_OP}: the value passed as `sharding` must be an instance of jax.sharding.Sharding, "
                                f"got {type(sharding).__name__}", op=_OP, argument="sharding")
        if jax.local_device_count() != 1:
            raise ArgumentError(f"{_OP}: `sharding` supports only global/multiprocess sharding: the process must "
                                f"see one local device, it sees {jax.local_device_count()}", op=_OP,
                                argument="sharding")
    return layouts


def jax_function(function=None, num_outputs=1, output_layouts=None, sharding=None, device=None, preserve=True):
    """Makes ``function`` (of ``jax.Array`` batches) a function of DataNodes (see the module's doc).
    Returns the decorated function, or a decorator when ``function`` is None."""
    jax = _jax()
    layouts = _check(jax, num_outputs, output_layouts, sharding, device)
    num_outputs = int(num_outputs)

    def decorator(function):
        if not callable(function):
            raise ArgumentError(f"{_OP}: `function` must be callable, got {type(function).__name__}", op=_OP,
                                argument="function")
        jax_callback = function if sharding is None else _with_sharding(jax, function, sharding)

        @functools.wraps(function)
        def dali_callback(*args):
            if not args:  # the batch size would be unknown to the function (python_function calls it with none)
                raise ArgumentError(f"{_OP}: the function needs at least one input (a batch to process)", op=_OP,
                                    argument="function")
            outputs = python_function(*args, function=_batch_wrapper(jax, jax_callback, num_outputs),
                                      num_outputs=num_outputs, batch_processing=True, output_layouts=layouts or None,
                                      layouts_from_inputs=True, name=instance_name(_OP))
            return None if num_outputs == 0 else outputs
        return dali_callback

    return decorator if function is None else decorator(function)
