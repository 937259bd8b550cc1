"""Operator schemas as the C++ registry describes them.

The registry is the single source of truth: ``fn`` and ``ops`` are generated from
:func:`all_schemas`, and every call is validated against its schema by the C++ core
(``_sluice.validate_operator``, see :mod:`sluice.graph`). Python holds no type tables:
:func:`to_schema_value` only spells DALI's enums (``sluice.types``) and NumPy dtypes as the
strings the schemas take.
"""
import enum
import functools

import numpy as np

from . import _sluice

# Arguments handled by the Python layer rather than the schema.
PYTHON_ARGS = ("name", "device")


class OperatorSchema:
    """One registered operator: name, docs, inputs, outputs and arguments (``ArgumentInfo``s)."""

    def __init__(self, info):
        self.name = info.name
        self.doc = info.doc
        self.backends = list(info.backends)
        self.min_inputs = info.min_inputs
        self.max_inputs = info.max_inputs
        self.input_names = list(info.input_names)
        # Per input: the accepted layouts in words ("HWC; none: read as HWC"), "" where any.
        self.input_layouts = list(info.input_layouts)
        self.num_outputs = info.num_outputs
        self.is_random = info.is_random
        self.is_reader = info.is_reader
        self.arguments = {a.name: a for a in info.arguments}
        # DALI's deprecated arguments the operator accepts: old name -> new name ("" if ignored).
        self.deprecated_arguments = dict(info.deprecated_arguments)


@functools.lru_cache(maxsize=None)
def get_schema(name):
    return OperatorSchema(_sluice.get_operator_info(name))


def all_schemas():
    """Every registered operator's schema, by registry name."""
    return {n: get_schema(n) for n in _sluice.list_operators()}


def to_schema_value(value):
    """DALI's enums and NumPy dtypes (alone or in a list) as the strings the schemas take; any other
    value unchanged (the C++ core converts numbers, strings, lists and NumPy scalars and arrays)."""
    if isinstance(value, enum.Enum) and hasattr(value, "sluice_name"):
        return value.sluice_name
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, (list, tuple)) and any(isinstance(v, (enum.Enum, np.dtype, type)) for v in value):
        return [to_schema_value(v) for v in value]
    return value

