"""What CPU and GPU batches share: :class:`_TensorList`, the batch's metadata (length, iteration,
sample shapes, type, layout, sources) over its ``_batch`` (a pipeline's ``_sluice.Batch`` or a
batch made in Python). Subclasses set ``_batch``, ``_layout`` and ``_empty_ndim`` (the number of
dimensions reported for an empty batch).
"""
import operator

from ..types import DALIDataType, dtype_from_name
from .host import _check_layout
from .printing import _tensorlist_to_string


class _TensorList:
    """What CPU and GPU batches share: the batch's metadata."""

    def __len__(self):
        return self._batch.num_samples

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def _index(self, i):
        i = operator.index(i)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{type(self).__name__} index out of range (sample {i} of {n})")
        return i

    def shape(self):
        return [tuple(s) for s in self._batch.shapes()]

    def ndim(self):
        """The number of dimensions of the samples."""
        if self._batch.num_samples:
            return len(self._batch.shape(0))
        return self._empty_ndim

    @property
    def dtype(self):
        name = self._batch.dtype
        return DALIDataType.NO_TYPE if name is None else dtype_from_name(name)

    def layout(self):
        return self._layout

    def set_layout(self, layout):
        """Sets the samples' layout (one letter per dimension); None or "" removes it."""
        self._layout = _check_layout(layout, self.ndim(), "TensorList")

    def source_info(self, i):
        """Where sample i came from (a file path, or archive:member @offset); "" if unknown."""
        return str(self._batch.source(self._index(i)))

    def is_dense_tensor(self):
        """True if every sample has the same shape, so that the batch can be one tensor."""
        return self._batch.is_dense()

    def __str__(self):
        return _tensorlist_to_string(self)

    def __repr__(self):
        return _tensorlist_to_string(self, show_data=False)
