"""Nested values of a conditional's outputs: tuples, lists, dicts (and namedtuples) of DataNodes.

Flattened to their DataNodes (:func:`_flatten`), mapped atom by atom over one structure or two of
the same shape (:func:`_map_structure`, :func:`_map_structure2`), and compared
(:func:`_assert_same_structure`: the same types, lengths and keys in the `if` and `else` branches,
else TypeError or ValueError). Pure functions; nothing here touches a pipeline.
"""
from ..graph import DataNode


def _is_pair_structure(value):
    return isinstance(value, (tuple, list, dict))


def _flatten(value, out):
    if isinstance(value, DataNode):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _flatten(v, out)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _flatten(v, out)


def _map_structure(fn, value):
    if isinstance(value, dict):
        return type(value)((k, _map_structure(fn, v)) for k, v in value.items())
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
        return type(value)(*(_map_structure(fn, v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_map_structure(fn, v) for v in value)
    return fn(value)


def _map_structure2(fn, a, b):
    if isinstance(a, dict):
        return type(a)((k, _map_structure2(fn, a[k], b[k])) for k in a)
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        return type(a)(*(_map_structure2(fn, x, y) for x, y in zip(a, b)))
    if isinstance(a, (tuple, list)):
        return type(a)(_map_structure2(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


def _assert_same_structure(a, b):
    if _is_pair_structure(a) or _is_pair_structure(b):
        if type(a) is not type(b):
            raise TypeError(f"{type(a).__name__} in the `if` branch, {type(b).__name__} in the `else` branch")
        if isinstance(a, dict):
            if set(a) != set(b):
                raise ValueError(f"keys {sorted(map(str, a))} and {sorted(map(str, b))}")
            for k in a:
                _assert_same_structure(a[k], b[k])
        else:
            if len(a) != len(b):
                raise ValueError(f"{type(a).__name__}s of lengths {len(a)} and {len(b)}")
            for x, y in zip(a, b):
                _assert_same_structure(x, y)
