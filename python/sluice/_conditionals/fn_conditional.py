"""``fn._conditional.split``, ``merge``, ``not_`` and ``validate_logical``: DALI's internal operators
behind conditionals, for code that calls them directly.

Here they are Python functions over ``_select.split``/``_select.merge``/``_select.table``;
:func:`install` puts them in ``fn._conditional`` (``sluice.fn`` calls it when it is built). Their
calls are recorded on the current pipeline but not scoped (they are the scoping's own tools).
"""
from ..errors import SluiceError
from ..graph import DataNode, make_call
from .scopes import _is_comparison, current_stack


# --- fn._conditional: DALI's internal operators, for code that calls them directly ---------------

def _pred(predicate, stack):
    """A predicate for _select.split/merge: a per-sample bool (`!= 0` unless it is one already)."""
    if not isinstance(predicate, DataNode):
        raise TypeError(f"predicate must be a DataNode of per-sample scalars, got {type(predicate).__name__}")
    if stack is not None and id(predicate) in stack.valid_bools or _is_comparison(predicate):
        return predicate
    return predicate != 0


def _split_fn(input, *, predicate, _if_stmt=False, name=None, device=None):
    """``fn._conditional.split(input, predicate=p)``: ``[rows where p, rows where not p]``."""
    stack = current_stack()
    p = _pred(predicate, stack)
    true = make_call("_select.split", [input, p], {"branch": 1}, name=name).outputs[0]
    false = make_call("_select.split", [input, p], {"branch": 0}).outputs[0]
    for call_out in (true, false):
        _record(call_out)
    return [true, false]


def _merge_fn(true_input, false_input, *, predicate, name=None, device=None):
    """``fn._conditional.merge(true_input, false_input, predicate=p)``: undoes ``split``."""
    p = _pred(predicate, current_stack())
    out = make_call("_select.merge", [p, false_input, true_input], {}, name=name).outputs[0]
    _record(out)
    return out


def _not_fn(input, *, name=None, device=None):
    """``fn._conditional.not_(input)``: the per-sample logical negation of a boolean scalar."""
    out = make_call("_select.table", [input], {"values": [1.0, 0.0], "shape": [], "dtype": "bool"},
                    name=name).outputs[0]
    _record(out)
    return out


def _validate_logical_fn(input, *, expression_name, expression_side, name=None, device=None):
    """``fn._conditional.validate_logical``: `input` as a per-sample boolean scalar, checked at run time
    (one element per sample, a bool or a 0/1 integer); the run-time error names the expression."""
    if getattr(input, "device", "cpu") != "cpu":
        raise SluiceError(f"Logical expression `{expression_name}` is restricted to scalar (0-d tensors) inputs, that "
                          f"are placed on CPU. Got a GPU input as the {expression_side} argument in logical expression.")
    out = make_call("_select.table", [input], {"values": [0.0, 1.0], "shape": [], "dtype": "bool"},
                    name=name).outputs[0]
    _record(out)
    return out


def _record(node):
    call = node.source_call
    if call.pipeline is not None:
        call.pipeline._record_call(call)


def install(fn_module):
    """``fn._conditional.split``, ``merge``, ``not_``, ``validate_logical`` (DALI's internal operators
    behind conditionals; here Python functions over _select.split/_select.merge/_select.table)."""
    from .. import namespaces
    module = namespaces.submodule(fn_module, "_conditional")
    for public, f in (("split", _split_fn), ("merge", _merge_fn), ("not_", _not_fn),
                      ("validate_logical", _validate_logical_fn)):
        f.__name__ = f.__qualname__ = public
        f.__module__ = module.__name__
        setattr(module, public, f)
