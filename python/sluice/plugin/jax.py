"""JAX iterators over Sluice pipelines, as ``nvidia.dali.plugin.jax``.

Each step returns ``{name: jax.Array}``; with several pipelines the arrays are stacked on a new
leading axis (one entry per pipeline). ``LastBatchPolicy.PARTIAL`` is not supported (JAX wants
fixed shapes), as in DALI. JAX is imported when an iterator is made. ``fn.jax_function`` (DALI's
operator on ``jax.Array`` batches) is in plugin/jax_function.py.
"""
import sys as _sys
import types as _types

from .base_iterator import BaseIterator, LastBatchPolicy
from .jax_function import jax_function

__all__ = ["DALIGenericIterator", "GenericIterator", "LastBatchPolicy", "fn"]


def _jax():
    try:
        import jax
        import jax.dlpack
        import jax.numpy
    except ImportError as e:
        raise ImportError("sluice.plugin.jax needs JAX: pip install jax") from e
    return jax


class DALIGenericIterator(BaseIterator):
    """Iterates pipelines, returning ``{output_map[i]: jax.Array}``. Arguments as the PyTorch
    iterator's, without ``dynamic_shape``, and without the PARTIAL last-batch policy."""

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        self._jax = _jax()
        if last_batch_policy == LastBatchPolicy.PARTIAL:
            raise ValueError("the JAX iterator does not support LastBatchPolicy.PARTIAL (JAX needs fixed shapes)")
        output_map = list(output_map)
        if len(set(output_map)) != len(output_map):
            raise ValueError(f"output_map names must be distinct, got {output_map}")
        self.output_map = output_map
        super().__init__(pipelines, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         last_batch_padded=last_batch_padded, last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch)

    def _convert(self, outputs):
        if len(outputs) != len(self.output_map):
            raise ValueError(f"the pipeline has {len(outputs)} outputs but output_map names {len(self.output_map)}")
        return {name: self._to_jax(out) for name, out in zip(self.output_map, outputs)}

    def _to_jax(self, tensor_list):
        tensor = tensor_list.as_tensor()
        try:
            return self._jax.dlpack.from_dlpack(tensor)
        except (RuntimeError, TypeError, BufferError):
            return self._jax.numpy.asarray(tensor.as_array())

    def _next_batch(self):
        per_pipeline = super()._next_batch()
        if len(per_pipeline) == 1:
            return per_pipeline[0]
        return {name: self._jax.numpy.stack([b[name] for b in per_pipeline]) for name in self.output_map}


GenericIterator = DALIGenericIterator


# DALI's plugin.jax.fn namespace.
fn = _types.ModuleType(__name__ + ".fn", "The functional API of sluice.plugin.jax (DALI's plugin.jax.fn).")
fn.jax_function = jax_function
_sys.modules[fn.__name__] = fn
