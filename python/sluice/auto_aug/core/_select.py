"""select: a per-sample switch over sub-graphs. Sample i goes through ``ops[index[i]]`` only.

Every DataNode among the arguments (including those inside a signed magnitude bin, lists, tuples
and dicts) is split by the index into one partial batch per operation (``_select.split``); each
operation's sub-graph runs on its own partial batch, and ``_select.merge`` puts the results back in
the original order. The work done per sample is that of its own operation, not of all of them.
"""
from ...graph import DataNode, call_operator
from ._augmentation import _SignedMagnitudeBin

_MAX_BRANCHES = 64


def _split(value, index, branch, cache):
    if isinstance(value, DataNode):
        key = id(value)
        if key not in cache:
            cache[key] = (value, call_operator("_select.split", [value, index], {"branch": branch})[0])
        return cache[key][1]
    if isinstance(value, _SignedMagnitudeBin):
        return value._with(_split(value.bin, index, branch, cache), _split(value.random_sign, index, branch, cache),
                           _split(value.signed_magnitude_idx, index, branch, cache))
    if isinstance(value, (list, tuple)):
        return type(value)(_split(v, index, branch, cache) for v in value)
    if isinstance(value, dict):
        return {k: _split(v, index, branch, cache) for k, v in value.items()}
    return value


def select(ops, selected_op_idx, *op_args, **op_kwargs):
    """Applies ``ops[selected_op_idx[i]](*op_args, **op_kwargs)`` to each sample i.

    selected_op_idx: a DataNode with one integer in [0, len(ops) - 1] per sample. Each op must map
    each sample of its partial batch to one sample of the same type and layout as the others'.
    """
    ops = list(ops)
    if not ops:
        raise ValueError("select: the list of operations is empty")
    if len(ops) == 1:
        return ops[0](*op_args, **op_kwargs)
    if len(ops) > _MAX_BRANCHES:
        raise ValueError(f"select: at most {_MAX_BRANCHES} operations, got {len(ops)}")
    if not isinstance(selected_op_idx, DataNode):
        raise TypeError(f"select: selected_op_idx must be a DataNode of integers, got {type(selected_op_idx).__name__}")
    outputs = []
    for branch, op in enumerate(ops):
        cache = {}
        args = _split(op_args, selected_op_idx, branch, cache)
        kwargs = _split(op_kwargs, selected_op_idx, branch, cache)
        out = op(*args, **kwargs)
        if not isinstance(out, DataNode):
            raise TypeError(f"select: operation {branch} ({getattr(op, 'name', op)!r}) returned "
                            f"{type(out).__name__}, not a DataNode")
        outputs.append(out)
    return call_operator("_select.merge", [selected_op_idx] + outputs, {})[0]
