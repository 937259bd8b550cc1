"""Operator schemas as the C++ registry describes them, and argument normalisation.

The registry is the single source of truth: ``fn`` and ``ops`` are generated from
:func:`all_schemas`, and every argument is checked against its schema when an operator is called.
"""
import functools
import numbers

from . import _sluice
from .errors import ArgumentError, did_you_mean
from .types import to_schema_value

# Arguments handled by the Python layer rather than the schema.
PYTHON_ARGS = ("name", "device")

# ArgumentInfo.type -> the (kind) tag the binding converts with.
_KINDS = {
    "bool": "bool", "int": "int", "float": "float", "str": "str", "dtype": "str",
    "list of int": "ints", "list of float": "floats", "list of str": "strs",
}


class OperatorSchema:
    """One registered operator: name, docs, inputs, outputs and arguments."""

    def __init__(self, info):
        self.name = info.name
        self.doc = info.doc
        self.backends = list(info.backends)
        self.min_inputs = info.min_inputs
        self.max_inputs = info.max_inputs
        self.input_names = list(info.input_names)
        self.num_outputs = info.num_outputs
        self.is_random = info.is_random
        self.is_reader = info.is_reader
        self.arguments = {a.name: a for a in info.arguments}

    def check_argument_name(self, name):
        if name not in self.arguments and name not in PYTHON_ARGS:
            raise ArgumentError(
                f"{self.name}: unknown argument '{name}'{did_you_mean(name, list(self.arguments) + list(PYTHON_ARGS))}",
                op=self.name, argument=name)

    def is_per_sample(self, name):
        return self.arguments[name].per_sample

    def normalize(self, name, value):
        """Returns (kind, value) for a constant argument, checking its type against the schema."""
        arg = self.arguments[name]
        kind = _KINDS[arg.type]
        value = to_schema_value(value)
        try:
            return kind, _convert(kind, value)
        except (TypeError, ValueError) as e:
            raise ArgumentError(f"{self.name}: argument '{name}' expects {arg.type}, got {value!r}",
                                op=self.name, argument=name) from e


def _scalar(kind, v):
    if kind == "bool":
        if isinstance(v, bool) or (isinstance(v, numbers.Integral) and v in (0, 1)):
            return bool(v)
    elif kind == "int":
        if isinstance(v, numbers.Integral):
            return int(v)
        if isinstance(v, numbers.Real) and float(v).is_integer():
            return int(v)
    elif kind == "float":
        if isinstance(v, numbers.Real):
            return float(v)
    elif kind == "str":
        if isinstance(v, str):
            return v
    raise TypeError(f"expected {kind}, got {type(v).__name__}")


def _convert(kind, value):
    if kind in ("ints", "floats", "strs"):
        elem = {"ints": "int", "floats": "float", "strs": "str"}[kind]
        items = value if isinstance(value, list) else [value]
        return [_scalar(elem, v) for v in items]
    return _scalar(kind, value)


@functools.lru_cache(maxsize=None)
def get_schema(name):
    return OperatorSchema(_sluice.get_operator_info(name))


def all_schemas():
    """Every registered operator's schema, by registry name."""
    return {n: get_schema(n) for n in _sluice.list_operators()}
