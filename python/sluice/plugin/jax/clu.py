"""The JAX iterator with peeking, for Google CLU's ``PeekableIterator`` protocol, as
``nvidia.dali.plugin.jax.clu``: ``DALIGenericPeekableIterator`` and the ``peekable_data_iterator``
decorator.

``peek()`` returns the next batch without advancing the iterator (the next ``next()`` returns the
same batch), ``peek_async()`` does so on a worker thread and returns a
``concurrent.futures.Future``, and ``element_spec`` describes each output (``ArraySpec``: shape and
dtype), taken from the first batch; a later batch of another shape or dtype is an error. ``ArraySpec``
is CLU's (``clu.data.dataset_iterator``) when CLU is installed, else an equivalent frozen dataclass.
"""
import concurrent.futures
import dataclasses
import threading
from typing import Any, Tuple

from ..base_iterator import LastBatchPolicy
from . import DALIGenericIterator, _data_iterator_impl

try:  # CLU's own classes when CLU is installed (DALI requires it)
    from clu.data.dataset_iterator import ArraySpec, ElementSpec  # noqa: F401
except ImportError:
    @dataclasses.dataclass(frozen=True)
    class ArraySpec:
        """The shape and dtype of an array (CLU's ``ArraySpec``, for environments without CLU)."""

        dtype: Any
        shape: Tuple[int, ...]

        def __repr__(self):
            return f"ArraySpec(dtype={getattr(self.dtype, 'name', self.dtype)}, shape={self.shape})"

    ElementSpec = dict

__all__ = ["DALIGenericPeekableIterator", "peekable_data_iterator", "get_spec_for_array", "ArraySpec"]


def get_spec_for_array(jax_array):
    """The ArraySpec (shape, dtype) of a JAX array."""
    return ArraySpec(shape=tuple(jax_array.shape), dtype=jax_array.dtype)


class DALIGenericPeekableIterator(DALIGenericIterator):
    """DALIGenericIterator with ``peek()``, ``peek_async()`` and ``element_spec`` (see the module
    docstring). Its outputs must keep one shape and dtype. Arguments as DALIGenericIterator's."""

    def __init__(self, pipelines, output_map, size=-1, reader_name=None, auto_reset=False,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                 sharding=None, *, _devices=None):
        super().__init__(pipelines, output_map, size=size, reader_name=reader_name, auto_reset=auto_reset,
                         last_batch_padded=last_batch_padded, last_batch_policy=last_batch_policy,
                         prepare_first_batch=prepare_first_batch, sharding=sharding, _devices=_devices)
        self._mutex = threading.Lock()
        self._pool = None
        self._peek = None
        self._ever_consumed = False
        self._element_spec = None
        first = self.peek()
        self._element_spec = {name: get_spec_for_array(first[name]) for name in self.output_map}

    def _checked(self, output):
        if self._element_spec is None:
            return output
        for name, array in output.items():
            spec = get_spec_for_array(array)
            if spec != self._element_spec[name]:
                raise ValueError(f"The shape or type of the output changed between iterations. This is not supported "
                                 f"by JAX peekable iterator. Please make sure that the shape and type of the output is "
                                 f"constant. Expected: {self._element_spec[name]}, got: {spec} for output: {name}")
        return output

    def _next_with_peek(self):
        if self._peek is None:
            return self._checked(DALIGenericIterator.__next__(self))
        peeked, self._peek = self._peek, None
        return self._checked(peeked)

    def __next__(self):
        with self._mutex:
            self._ever_consumed = True
            return self._next_with_peek()

    def __iter__(self):
        # As DALI's: iterating again after batches were taken starts the next epoch (reset()).
        if self._ever_consumed and self._peek is None and self._counter != 0:
            self.reset()
        return self

    def peek(self):
        """The next batch (a dict of jax.Array), without advancing the iterator."""
        with self._mutex:
            if self._peek is None:
                self._peek = self._next_with_peek()
            return self._peek

    def peek_async(self):
        """A ``concurrent.futures.Future`` of ``peek()``, computed on a worker thread. Wait for it
        before the next ``peek()`` or ``next()`` to be sure they return its batch."""
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        return self._pool.submit(self.peek)

    @property
    def element_spec(self):
        """``{name: ArraySpec}`` of the outputs, from the first batch."""
        return self._element_spec


def peekable_data_iterator(pipeline_fn=None, output_map=(), size=-1, reader_name=None, auto_reset=False,
                           last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True,
                           sharding=None, devices=None):
    """``sluice.plugin.jax.data_iterator`` making DALIGenericPeekableIterators."""
    return _data_iterator_impl(DALIGenericPeekableIterator, pipeline_fn, list(output_map), size, reader_name,
                               auto_reset, last_batch_padded, last_batch_policy, prepare_first_batch, sharding,
                               devices)
