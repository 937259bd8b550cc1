"""The scopes of conditionals while a pipeline's graph is defined (DALI's ``_ConditionStack``).

:class:`ConditionStack` (one per pipeline, ``pipe._condition_stack``) holds a :class:`_Scope` per
open ``if`` (or ``and``/``or``) on a DataNode. Every operator call and arithmetic expression asks
it for its inputs (``scope_inputs``/``preprocess``): a DataNode made in an outer scope is split
(``_select.split`` by the scope's predicate) once per scope and branch; outputs are registered in
the scope where they are made. ``merge`` joins the two branches' values (``_select.merge``), and
``truth`` turns a condition into a checked per-sample boolean (a ``_select.table`` named after the
user's line). Splits and merges are CPU-only: GPU data inside a branch is a SluiceError.

Also here: the undefined-variable markers (:data:`UNDEFINED`, :data:`UNDEFINED_RETURN`) and the
lookup of the current pipeline's stack (:func:`current_stack`).
"""
import itertools

from .. import current
from ..errors import SluiceError
from ..graph import DataNode, make_call
from .structure import _flatten


class _Undefined:
    """The value of a variable that is not bound (before an ``if`` that assigns it, or in the branch
    that does not)."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return f"<{self.what}>"


UNDEFINED = _Undefined("undefined variable")
UNDEFINED_RETURN = _Undefined("no return value")

_LOGICAL_NAMES = {"if": "`if` condition", "and": "`and`", "or": "`or`", "not": "`not`"}


def _where(filename, lineno):
    return f"{filename}, line {lineno}"


def _short(filename):
    return str(filename).replace("\\", "/").rsplit("/", 1)[-1]


def _read(getter):
    try:
        return getter()
    except NameError:  # UnboundLocalError too, and an unbound free variable
        return UNDEFINED


class _Scope:
    """One level of the stack: an ``if`` (or ``and``/``or``) on a DataNode. ``predicate`` is the
    per-sample boolean in the enclosing scope; ``branch`` True/False while a branch is traced,
    None outside them (the outermost scope, or while merging)."""

    def __init__(self, predicate, where):
        self.predicate = predicate
        self.where = where
        self.branch = None
        self.produced = {True: {}, False: {}, None: {}}  # id -> node
        self.splits = {}  # (id(node), branch) -> (node, split node)

    def add(self, node):
        self.produced[self.branch][id(node)] = node

    def visible(self, node):
        """`node` as this scope sees it (itself, or its split for the current branch), or None."""
        k = id(node)
        if self.branch is None:
            for produced in self.produced.values():
                if k in produced:
                    return node
            return None
        if k in self.produced[self.branch]:
            return node
        hit = self.splits.get((k, self.branch))
        return hit[1] if hit is not None else None


class ConditionStack:
    """The scopes of the conditionals of one pipeline being defined (DALI's _ConditionStack)."""

    def __init__(self):
        self.scopes = [_Scope(None, None)]
        self.valid_bools = {}    # id -> node: per-sample boolean scalars made by the stack
        self.branch_nodes = {}   # id -> (node, where): made inside a branch (to report leaks)
        self._names = itertools.count()

    @property
    def top(self):
        return self.scopes[-1]

    @property
    def depth(self):
        return len(self.scopes)

    # --- operator calls (graph.make_call, graph.expression) ------------------------------------
    def find(self, node):
        for level in range(len(self.scopes) - 1, -1, -1):
            seen = self.scopes[level].visible(node)
            if seen is not None:
                return level, seen
        leaked = self.branch_nodes.get(id(node))
        if leaked is not None and leaked[0] is node:
            raise SluiceError(
                f"{node.name} was produced inside a branch of the `if` at {leaked[1]} and is used outside "
                "that branch without being assigned to a variable of the enclosing function (which the "
                "`if` would merge): a value kept in a list, a dict or an attribute is not merged. Assign it "
                "to a variable in both branches instead.")
        return 0, node  # made outside the tracked graph (a function argument, another `with`): a full batch

    def preprocess(self, node):
        """`node` as the current scope sees it: split down from the scope that produced it."""
        level, seen = self.find(node)
        for scope in self.scopes[level + 1:]:
            seen = self._split(seen, scope, node)
        return seen

    def _split(self, node, scope, key):
        hit = scope.splits.get((id(node), scope.branch))
        if hit is None:
            if node.device != "cpu":
                raise SluiceError(
                    f"conditionals: {node.name} is GPU data used inside a branch of the `if` at {scope.where}; "
                    "Sluice splits and merges batches only on the CPU (its _select.split and _select.merge "
                    "have no GPU backend). Branch on the CPU data and call .gpu() after the `if`.")
            out = _call("_select.split", [node, scope.predicate], {"branch": int(scope.branch)})[0]
            hit = (node, out)
            scope.splits[(id(node), scope.branch)] = hit
            scope.produced[scope.branch][id(out)] = out
            self._note_branch_node(out, scope)
        scope.splits[(id(key), scope.branch)] = (key, hit[1])
        return hit[1]

    def _note_branch_node(self, node, scope):
        self.branch_nodes[id(node)] = (node, scope.where)

    def scope_inputs(self, op_name, inputs, kwargs, had_inputs):
        """The inputs and per-sample arguments of an operator call, split for the current scope."""
        if self.depth > 1 and not had_inputs and op_name == "batch_permutation":
            raise SluiceError(
                f"fn.batch_permutation inside a branch of the `if` at {self.top.where}: its permutation must "
                "cover the branch's samples, which DALI passes through a hidden `_scope` argument that Sluice's "
                "operator does not have. Call it before the `if` and apply it there.")
        inputs = [self.preprocess(n) if isinstance(n, DataNode) else n for n in inputs]
        kwargs = {k: (self.preprocess(v) if isinstance(v, DataNode) else v) for k, v in kwargs.items()}
        return inputs, kwargs

    def register(self, nodes, global_scope=False):
        scope = self.scopes[0] if global_scope else self.top
        for node in nodes:
            scope.add(node)
            if scope is not self.scopes[0]:
                self._note_branch_node(node, scope)

    # --- the scopes of one `if` / `and` / `or` --------------------------------------------------
    def push(self, predicate, where):
        scope = _Scope(predicate, where)
        self.scopes.append(scope)
        return scope

    def pop(self):
        return self.scopes.pop()

    def merge(self, scope, if_false, if_true):
        """merge(predicate, false branch, true branch): one batch in the order of the predicate."""
        for node in (if_true, if_false):
            if node.device != "cpu":
                raise SluiceError(
                    f"conditionals: a branch of the `if` at {scope.where} produces GPU data ({node.name}); Sluice "
                    "merges batches only on the CPU (_select.merge has no GPU backend). Call .gpu() after the `if`.")
        return _call("_select.merge", [scope.predicate, if_false, if_true], {})[0]

    def truth(self, value, kind, side, where, negate=False):
        """`value` as a per-sample boolean scalar in the current scope, checked (one element per
        sample; for `and`/`or`/`not` a bool or 0/1 integer) by a `_select.table` named after the
        user's line. `kind` is "if", "and", "or" or "not"."""
        if not isinstance(value, DataNode):
            from ..types import Constant  # noqa: a Python value in a logical expression becomes a constant batch
            try:
                value = Constant(value, device="cpu")
            except (TypeError, ValueError):
                raise TypeError(f"{_LOGICAL_NAMES[kind]} at {_where(*where)}: the {side or 'only'} operand "
                                f"{value!r} is neither a DataNode nor a number") from None
            self.register([value], global_scope=True)
        if value.device != "cpu":
            what = "Conditions inside `if` statements are" if kind == "if" else f"Logical expression `{kind}` is"
            place = ("as a condition of the `if` statement" if kind == "if" else
                     f"as the {side} argument in logical expression" if side else "in logical expression")
            raise SluiceError(f"{what} restricted to scalar (0-d tensors) inputs, that are placed on CPU. Got a GPU "
                              f"input {place} ({value.name}, at {_where(*where)}).")
        node = self.preprocess(value)
        if id(node) in self.valid_bools and not negate:
            return node
        if kind == "if" and id(node) not in self.valid_bools and not _is_comparison(node):
            node = node != 0  # DALI evaluates any numeric scalar as a truth value; registers itself
        label = {"if": "`if` condition", "and": f"`and` {side} operand", "or": f"`or` {side} operand",
                 "not": "`not` operand"}[kind]
        rule = "one number per sample" if kind == "if" else "one bool per sample"
        name = f"{label} ({_short(where[0])}:{where[1]}; must be {rule}) #{next(self._names)}"
        values = [1.0, 0.0] if negate else [0.0, 1.0]
        checked = _call("_select.table", [node], {"values": values, "shape": [], "dtype": "bool"}, name=name)[0]
        self.register([checked])
        self.valid_bools[id(checked)] = checked
        return checked

    def finish(self, outputs):
        """After the graph-defining function: every scope closed, and no output leaked from a branch."""
        if self.depth != 1:
            raise SluiceError(f"conditionals: the scope of the `if` at {self.top.where} was not closed (an exception "
                              "raised inside a branch was caught inside the pipeline definition)")
        flat = []
        _flatten(outputs, flat)
        for node in flat:
            self.preprocess(node)


def _is_comparison(node):
    tree = node.__dict__.get("_tree")
    return tree is not None and tree[0] in ("eq", "ne", "lt", "le", "gt", "ge")


def _call(op_name, inputs, kwargs, name=None):
    """An operator call made by the conditionals themselves (not scoped again)."""
    call = make_call(op_name, inputs, kwargs, device="cpu", name=name, scoped=False)
    if call.pipeline is not None:
        call.pipeline._record_call(call)
    return call.outputs


def stack_of(pipeline):
    return getattr(pipeline, "_condition_stack", None) if pipeline is not None else None


def current_stack():
    return stack_of(current.current())
