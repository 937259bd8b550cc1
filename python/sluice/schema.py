"""Operator schemas as the C++ registry describes them.

The registry is the single source of truth: ``fn`` and ``ops`` are generated from
:func:`all_schemas`, and every call is validated against its schema by the C++ core
(``_sluice.validate_operator``, see :mod:`sluice.graph`). Python holds no type tables.
"""
import functools

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


@functools.lru_cache(maxsize=None)
def get_schema(name):
    return OperatorSchema(_sluice.get_operator_info(name))


def all_schemas():
    """Every registered operator's schema, by registry name."""
    return {n: get_schema(n) for n in _sluice.list_operators()}
