"""The declared output descriptions of a pipeline (``output_dtype``, ``output_ndim``,
``output_layout``) and their check on every output of every iteration.

``_check_output_dtype``/``_check_output_ndim``/``_check_output_layout`` validate the constructor's
arguments (TypeError/ValueError); :class:`PipelineOutputChecks`, a part of
:class:`sluice.pipeline.Pipeline`, expands them to one description per output when the graph is
built (a SluiceError when a list does not match the number of outputs), reports them
(``output_dtype()``, ``output_ndim()``) and checks each batch taken against them: a mismatch raises
SluiceError (a RuntimeError, as DALI's). It expects the Pipeline's attributes (``_output_dtype``,
``_output_ndim``, ``_output_layout``, ``_descs``, ``_edges``, ``_outputs``, ``_build_graph()``).
"""
from . import types as _types
from .errors import SluiceError


class PipelineOutputChecks:
    """The output descriptions of a :class:`sluice.pipeline.Pipeline` and their per-iteration check."""

    def output_dtype(self):
        """The data types declared for the outputs (``output_dtype``), one per output; None where
        any type is accepted."""
        return self._output_descs()[0]

    def output_ndim(self):
        """The numbers of dimensions declared for the outputs (``output_ndim``), one per output; None
        where any is accepted."""
        return self._output_descs()[1]

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
