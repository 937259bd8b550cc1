"""Conditionals: ``if``/``elif``/``else``, ``and``, ``or`` and ``not`` on DataNodes, per sample
(DALI's ``@pipeline_def(enable_conditionals=True)``).

How it works, in two parts.

**The rewrite** (:func:`convert`). The graph-defining function's source is parsed (``inspect`` +
``ast``) and recompiled under its own file name and line numbers, so a traceback points at the
user's lines. In the new code:

* every ``if`` becomes straight-line code around its two branches::

      c = _sluice_ag.if_(<test>, file, line, names, outputs, jumps)
      if c.dn: c.begin(<getters of names>)           # a DataNode test: open the scope
      if c.then():                                   # Python test: its truth; DataNode: True
          <body>
      if c.dn: names = c.middle(<getters>)           # record the `if` branch, restore the state
      if c.orelse():                                 # Python test: not its truth; DataNode: True
          <orelse>
      if c.dn: names = c.end(<getters>)              # merge, close the scope

  With a Python test only ``then()``/``orelse()`` matter and the statement behaves exactly as the
  original ``if``; with a DataNode test both branches are traced, each under its own scope.
  ``names`` are the variables the branches assign (read by ``lambda: name`` getters, so that an
  unbound one reads as undefined, and unbound again after its restore); ``outputs`` those of them
  read after the statement (a liveness scan of the code that follows), which are merged; the
  others get their value from before the ``if``. ``jumps``: a branch has a ``break``/``continue``
  of a loop around the ``if`` (an error with a DataNode test);
* ``a and b``, ``a or b`` and ``not a`` become ``_sluice_ag.and_(a, lambda: b, line)``, ... : Python
  semantics for Python values, DALI's per-sample ones (``b`` evaluated only for the samples that
  need it) for DataNodes;
* a ``return`` inside an ``if`` becomes an assignment to a return-value variable, merged like any
  other output; the statements after an ``if`` whose branch definitely returns are moved into its
  other branch first (as AutoGraph does);
* every call ``f(...)`` becomes ``_sluice_ag.cv(f)(...)``: a user function called from converted code
  is converted too (DALI converts "any top-level function or method called within the pipeline
  definition"), unless it is marked :func:`do_not_convert` or comes from Sluice, NumPy, the standard
  library and the like.

**The scopes** (:class:`ConditionStack`, one per pipeline while its graph is defined). Every
operator call (``graph.make_call``) and every arithmetic expression asks the stack for its inputs:
a DataNode produced in an outer scope is split (``_select.split``, by the scope's predicate) on the
way in, once per scope and branch; outputs are registered in the scope where they are made
(operators without inputs in the outermost scope: they make the whole batch, as in DALI). At the end
of an ``if`` with a DataNode condition the outputs of both branches are merged (``_select.merge``).
The predicate of a scope is the condition as a per-sample boolean scalar: ``cond != 0`` (DALI
evaluates any numeric scalar as a truth value), checked by a ``_select.table`` named after the
user's line (an instance name like "`if` condition (pipe.py:12; must be one number per sample) #3",
which every run-time error of that check carries).
"""
import ast
import inspect
import itertools
import sys
import types as _pytypes
import warnings
import weakref

from . import current
from .errors import SluiceError
from .graph import DataNode, make_call

# ---------------------------------------------------------------------------------------------------
# Runtime


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


def _is_pair_structure(value):
    return isinstance(value, (tuple, list, dict))


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
            from .types import Constant  # noqa: a Python value in a logical expression becomes a constant batch
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


# --- the statements the rewritten code calls --------------------------------------------------------

class _IfStatement:
    """One execution of a rewritten ``if``."""

    __slots__ = ("cond", "where", "names", "outputs", "dn", "truth", "stack", "scope", "saved",
                 "true_values", "true_outputs", "last")

    def __init__(self, cond, filename, lineno, names, outputs, jumps=False):
        self.where = (filename, lineno)
        self.names = names
        self.outputs = outputs
        self.stack = current_stack() if isinstance(cond, DataNode) else None
        self.dn = self.stack is not None
        self.cond = cond
        self.truth = None if self.dn else bool(cond)  # Python's `if`: one truth test, here
        self.last = ()
        if self.dn and jumps:
            raise SluiceError(f"`break` or `continue` inside a branch of the `if` at {self._text()}, whose condition "
                              "is a DataNode: both branches are traced for every batch, so a branch cannot leave the "
                              "loop around the `if` (as in DALI). Move the loop control outside the `if`.")

    def then(self):
        return True if self.dn else self.truth

    def orelse(self):
        return True if self.dn else not self.truth

    def undef(self, i):
        return self.last[i] is UNDEFINED

    def _text(self):
        return _where(*self.where)

    def begin(self, getters):
        self.saved = tuple(_read(g) for g in getters)
        predicate = self.stack.truth(self.cond, "if", "", self.where)
        self.scope = self.stack.push(predicate, self._text())
        self.scope.branch = True

    def middle(self, getters):
        values = tuple(_read(g) for g in getters)
        self.true_values = values
        self.true_outputs = [self._prepare(values, i, "if") for i in self.outputs]
        self.scope.branch = False
        self.last = self.saved
        return self.saved

    def end(self, getters):
        values = tuple(_read(g) for g in getters)
        false_outputs = [self._prepare(values, i, "else") for i in self.outputs]
        scope = self.scope
        scope.branch = None
        scope.produced[None][id(scope.predicate)] = scope.predicate
        merged = {}
        for i, t, f in zip(self.outputs, self.true_outputs, false_outputs):
            merged[i] = self._merge(self.names[i], t, f)
        self.stack.pop()
        flat = []
        for value in merged.values():
            _flatten(value, flat)
        self.stack.register(flat)
        result = []
        for i, name in enumerate(self.names):
            if i in merged:
                result.append(merged[i])
            elif name == _DO_RETURN:  # both branches returned (the return value is checked in both)
                result.append(self.true_values[i])
            else:
                result.append(self.saved[i])
        self.last = tuple(result)
        return self.last

    def _prepare(self, values, i, branch):
        """A branch's value of output `i`, checked and made visible in this branch's scope
        (DataNodes split, numbers promoted to constant batches)."""
        name, value = self.names[i], values[i]
        if value is UNDEFINED or value is UNDEFINED_RETURN:
            common = ("Encountered inconsistent outputs out of the `if/else` control flow statement at "
                      f"{self._text()}. Variables need to be initialized in every code path (both `if` branches).")
            if name == _RETVAL:
                raise RuntimeError(f"{common} The `{branch}` branch must also have a return statement.")
            raise RuntimeError(f"{common} Variable '{name}' must also be initialized in the `{branch}` branch.")
        return _map_structure(lambda atom: self._prepare_atom(name, atom), value)

    def _prepare_atom(self, name, atom):
        if isinstance(atom, DataNode):
            return self.stack.preprocess(atom)
        from .types import Constant
        what = "the return value" if name == _RETVAL else f"variable '{name}'"
        try:
            node = Constant(atom, device="cpu")
        except (TypeError, ValueError):
            raise TypeError(
                f"{what} is assigned {type(atom).__name__} {atom!r} in a branch of the `if` at {self._text()}, "
                "whose condition is a DataNode: a variable assigned in such a branch and used after it is merged "
                "per sample, so it must hold DataNodes or numbers (or tuples, lists and dicts of them)") from None
        self.stack.register([node], global_scope=True)
        return self.stack.preprocess(node)

    def _merge(self, name, t, f):
        try:
            _assert_same_structure(t, f)
        except (TypeError, ValueError) as e:
            what = "the return value" if name == _RETVAL else f"variable '{name}'"
            raise type(e)(
                f"Divergent data found in different branches of the `if/else` statement at {self._text()}: "
                f"{what} has a different nesting structure in the two branches ({e}). Variables of all code paths "
                "are merged into common batches, so a tuple must be a tuple of the same length in both branches, "
                "a dict must have the same keys; the contents may differ.") from None
        return _map_structure2(lambda a, b: self.stack.merge(self.scope, b, a), t, f)


def if_(cond, filename, lineno, names, outputs, jumps=False):
    return _IfStatement(cond, filename, lineno, names, outputs, jumps)


def not_(value, filename=None, lineno=None):
    if not isinstance(value, DataNode):
        return not value
    stack = current_stack()
    if stack is None:
        return not value  # DataNode.__bool__ explains
    return stack.truth(value, "not", "", (filename, lineno), negate=True)


def and_(left, right, filename=None, lineno=None):
    """``left and right()``: for a DataNode `left`, `right` is evaluated for the samples where `left`
    is true only, and the result is a per-sample boolean."""
    if not isinstance(left, DataNode) or current_stack() is None:
        return right() if left else left
    return _lazy_logical("and", left, right, (filename, lineno))


def or_(left, right, filename=None, lineno=None):
    """``left or right()``, per sample for a DataNode `left` (see :func:`and_`)."""
    if not isinstance(left, DataNode) or current_stack() is None:
        return left if left else right()
    return _lazy_logical("or", left, right, (filename, lineno))


def _lazy_logical(kind, left, right, where):
    stack = current_stack()
    predicate = stack.truth(left, kind, "left", where)
    scope = stack.push(predicate, _where(*where))
    # and: if left: right() else: left.   or: if left: left else: right().
    scope.branch = True
    if kind == "and":
        value_true = stack.preprocess(stack.truth(right(), kind, "right", where))
    else:
        value_true = stack.preprocess(predicate)
    scope.branch = False
    if kind == "and":
        value_false = stack.preprocess(predicate)
    else:
        value_false = stack.preprocess(stack.truth(right(), kind, "right", where))
    scope.branch = None
    scope.produced[None][id(predicate)] = predicate
    merged = stack.merge(scope, value_false, value_true)
    stack.pop()
    stack.register([merged])
    stack.valid_bools[id(merged)] = merged
    return merged


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


# --- calls from converted code: convert the callee too ---------------------------------------------

# Modules whose functions are never converted: Sluice itself, and libraries that do not build Sluice
# graphs (DALI's list, plus the frameworks).
_DO_NOT_CONVERT = ("sluice", "numpy", "pandas", "PIL", "matplotlib", "absl", "torch", "jax", "jaxlib",
                   "tensorflow", "cupy", "scipy", "numba", "ray", "pytest", "_pytest")
_converted = weakref.WeakKeyDictionary()  # original function -> converted function
_unconvertible = weakref.WeakSet()


def cv(f):
    """The callee of a call made from converted code: `f` converted when it is a user function."""
    if isinstance(f, _pytypes.MethodType):
        func = f.__func__
        if isinstance(func, _pytypes.FunctionType) and _wants_conversion(func):
            conv = _convert_or_none(func)
            if conv is not None:
                return _pytypes.MethodType(conv, f.__self__)
        return f
    if isinstance(f, _pytypes.FunctionType) and _wants_conversion(f):
        conv = _convert_or_none(f)
        if conv is not None:
            return conv
    return f


def _wants_conversion(func):
    if getattr(func, "_sluice_do_not_convert", False) or func in _unconvertible:
        return False
    if "_sluice_ag" in func.__code__.co_freevars:  # already converted (or defined inside converted code)
        return False
    if func.__name__ == "<lambda>" or func.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                                                 inspect.CO_ASYNC_GENERATOR):
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    return module not in _DO_NOT_CONVERT and module not in sys.stdlib_module_names and module != "builtins"


def _convert_or_none(func):
    try:
        return convert(func)
    except Exception as e:  # noqa: BLE001 - a function that cannot be converted runs as it is (as in DALI)
        _unconvertible.add(func)
        reason = str(e) if isinstance(e, _ConversionError) else f"{func.__qualname__}: {type(e).__name__}: {e}"
        warnings.warn(f"enable_conditionals: {reason}; it runs unconverted (an `if` on a DataNode in it is an error)",
                      stacklevel=3)
        return None


def convert_pipeline_function(func):
    """`func` rewritten for conditionals; a SluiceError naming the reason when it cannot be."""
    try:
        if isinstance(func, _pytypes.MethodType) and isinstance(func.__func__, _pytypes.FunctionType):
            return _pytypes.MethodType(convert(func.__func__), func.__self__)
        if not isinstance(func, _pytypes.FunctionType):
            raise _ConversionError(f"{func!r} is not a Python function (a `def`)")
        return convert(func)
    except _ConversionError as e:
        raise SluiceError(f"enable_conditionals=True: cannot convert the pipeline definition: {e}") from None


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
    from . import namespaces
    module = namespaces.submodule(fn_module, "_conditional")
    for public, f in (("split", _split_fn), ("merge", _merge_fn), ("not_", _not_fn),
                      ("validate_logical", _validate_logical_fn)):
        f.__name__ = f.__qualname__ = public
        f.__module__ = module.__name__
        setattr(module, public, f)


def do_not_convert(func=None):
    """DALI's ``@do_not_convert``: the function is not rewritten when called from a pipeline definition
    with conditionals enabled (it must not branch on DataNodes). Returns the function itself."""
    if func is None:
        return do_not_convert
    if getattr(func, "_is_pipeline_def", False):
        raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")
    try:
        func._sluice_do_not_convert = True
    except (AttributeError, TypeError):
        pass  # a builtin or a C function: never converted anyway
    return func


# ---------------------------------------------------------------------------------------------------
# The rewrite

_AG = "_sluice_ag"
_RETVAL = "_sluice_retval"
_DO_RETURN = "_sluice_do_return"
_PLAIN = "_sluice_plain"   # an attribute on generated `if` nodes: not rewritten
_LIVE_ALWAYS = ("locals", "vars", "eval", "exec")


class _ConversionError(Exception):
    pass


def convert(func):
    """The function with its ``if``s, ``and``/``or``/``not`` and calls rewritten (cached). Raises
    _ConversionError (a clear reason) when it cannot be."""
    cached = _converted.get(func)
    if cached is not None:
        return cached
    code = func.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise _ConversionError(f"{func.__qualname__} is a generator or coroutine function")
    try:
        lines, first = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or code.co_filename
    except (OSError, TypeError) as e:
        raise _ConversionError(f"the source of {func.__qualname__} is not available ({e})") from None
    source = "".join(lines)
    indented = source[:1].isspace()
    try:
        module = ast.parse(("if 1:\n" + source) if indented else source, filename=filename)
    except SyntaxError as e:
        raise _ConversionError(f"the source of {func.__qualname__} does not parse on its own ({e.msg})") from None
    tree = module.body[0].body[0] if indented else module.body[0]
    if not isinstance(tree, ast.FunctionDef) or tree.name != code.co_name:
        raise _ConversionError(f"the source of {func.__qualname__} is not a plain `def` (a lambda or a generated "
                               "function)")
    ast.increment_lineno(tree, first - (2 if indented else 1))
    tree.decorator_list = []
    _canonicalize_returns(tree)
    _Rewriter(filename).visit_function(tree, top=True)
    # A method is compiled inside a class of its class's name, so that private names (`self.__x`) are
    # mangled as in the original; its `__class__` cell (zero-argument super()) is the original's.
    parts = func.__qualname__.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None
    inner = tree
    if owner is not None:
        inner = ast.ClassDef(name=owner, bases=[], keywords=[], body=[tree], decorator_list=[])
        if sys.version_info >= (3, 12):
            inner.type_params = []
    result = ast.Name(id=tree.name, ctx=ast.Load()) if owner is None else \
        ast.Attribute(value=ast.Name(id=owner, ctx=ast.Load()), attr=tree.name, ctx=ast.Load())
    factory = ast.FunctionDef(
        name="_sluice_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in list(code.co_freevars) + [_AG]],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[inner, ast.Return(value=result)], decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):
        factory.type_params = []
    wrapper = ast.Module(body=[factory], type_ignores=[])
    for n in (factory, inner, result, *ast.walk(result)):
        ast.copy_location(n, tree)
    ast.fix_missing_locations(wrapper)
    compiled = compile(wrapper, filename, "exec", dont_inherit=True)
    new_code = _find_code(compiled, tree.name, tree.lineno)
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    missing = [n for n in new_code.co_freevars if n not in cells and n != _AG]
    if missing:
        raise _ConversionError(f"{func.__qualname__} refers to {missing} from an enclosing scope it did not "
                               "capture")
    closure = tuple(cells[n] if n in cells else _pytypes.CellType(sys.modules[__name__]) for n in new_code.co_freevars)
    new = _pytypes.FunctionType(new_code, func.__globals__, func.__name__, func.__defaults__, closure)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new.__dict__.update(func.__dict__)
    new.__annotations__ = dict(getattr(func, "__annotations__", {}) or {})
    _converted[func] = new  # (the converted function holds no reference to the original: the cache is weak)
    return new


def _find_code(code, name, lineno):
    """The code object of function `name` defined at `lineno` inside `code` (depth first)."""
    for const in code.co_consts:
        if isinstance(const, _pytypes.CodeType):
            if const.co_name == name and const.co_firstlineno == lineno and const.co_flags & inspect.CO_NEWLOCALS:
                return const
            found = _find_code(const, name, lineno)
            if found is not None:
                return found
    return None


def _definitely_returns(stmts):
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and _definitely_returns(s.body) and _definitely_returns(s.orelse):
            return True
        if isinstance(s, (ast.With, ast.AsyncWith)) and _definitely_returns(s.body):
            return True
    return False


def _canon_block(stmts):
    """AutoGraph's conditional-return canonicalisation: statements after an `if` one of whose
    branches definitely returns move into its other branch; code after a `return` is dropped."""
    out = []
    for i, s in enumerate(stmts):
        rest = stmts[i + 1:]
        if isinstance(s, ast.Return):
            out.append(s)
            return out
        if isinstance(s, ast.If):
            s.body = _canon_block(s.body)
            s.orelse = _canon_block(s.orelse)
            body_returns, orelse_returns = _definitely_returns(s.body), _definitely_returns(s.orelse)
            if rest and body_returns and not orelse_returns:
                s.orelse = _canon_block(s.orelse + rest)
                out.append(s)
                return out
            if rest and orelse_returns and not body_returns:
                s.body = _canon_block(s.body + rest)
                out.append(s)
                return out
        else:
            _canon_children(s)
        out.append(s)
    return out


def _canon_children(s):
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
        _canonicalize_returns(s)
        return
    if isinstance(s, ast.ClassDef):
        return
    for field in ("body", "orelse", "finalbody"):
        block = getattr(s, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            setattr(s, field, _canon_block(block))
    for handler in getattr(s, "handlers", []) or []:
        handler.body = _canon_block(handler.body)
    for case in getattr(s, "cases", []) or []:
        case.body = _canon_block(case.body)


def _canonicalize_returns(func):
    func.body = _canon_block(func.body)
    _ReturnLowering(func).run()


def _name(id_, ctx=ast.Load):
    return ast.Name(id=id_, ctx=ctx())


def _assign(target, value):
    return ast.Assign(targets=[_name(target, ast.Store)], value=value, lineno=0)


def _plain_if(test, body, orelse=()):
    node = ast.If(test=test, body=list(body), orelse=list(orelse))
    setattr(node, _PLAIN, True)
    return node


class _ReturnLowering:
    """``return x`` inside an ``if`` (of this function, not of a nested one) becomes
    ``_sluice_do_return = True; _sluice_retval = x``; after the outermost such ``if``,
    ``if _sluice_do_return: return _sluice_retval``. Inside loops within the ``if`` a lowered return
    breaks out, and the statements after a statement that may have returned are guarded."""

    def __init__(self, func):
        self.func = func
        self.used = False

    def run(self):
        self.func.body = self._block(self.func.body, in_if=False, in_loop=False)
        if self.used:
            init = [_assign(_DO_RETURN, ast.Constant(False)),
                    _assign(_RETVAL, ast.Attribute(value=_name(_AG), attr="UNDEFINED_RETURN", ctx=ast.Load()))]
            for s in init:
                ast.copy_location(s, self.func.body[0])
                for n in ast.walk(s):
                    ast.copy_location(n, self.func.body[0])
            body = self.func.body
            doc = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str) else 0
            self.func.body = body[:doc] + init + body[doc:]

    def _block(self, stmts, in_if, in_loop):
        out = []
        for i, s in enumerate(stmts):
            if isinstance(s, ast.Return) and in_if:
                self.used = True
                value = s.value if s.value is not None else ast.Constant(None)
                new = [_assign(_DO_RETURN, ast.Constant(True)), _assign(_RETVAL, value)]
                if in_loop:
                    new.append(ast.Break())
                for n in new:
                    ast.copy_location(n, s)
                out.extend(new)
                return out
            returned = self._stmt(s, in_if, in_loop)
            out.append(s)
            if not returned:
                continue
            rest = stmts[i + 1:]
            if not in_if:
                guard = ast.If(test=_name(_DO_RETURN), body=[ast.Return(value=_name(_RETVAL))], orelse=[])
                setattr(guard, _PLAIN, True)
                out.append(ast.copy_location(guard, s))
                continue
            if isinstance(s, (ast.For, ast.While, ast.AsyncFor)) and in_loop:
                out.append(ast.copy_location(_plain_if(_name(_DO_RETURN), [ast.Break()]), s))
            if rest:
                body = self._block(rest, in_if, in_loop)
                guard = _plain_if(ast.UnaryOp(op=ast.Not(), operand=_name(_DO_RETURN)), body)
                out.append(ast.copy_location(guard, rest[0]))
            return out
        return out

    def _stmt(self, s, in_if, in_loop):
        """Lowers the returns inside `s`; True if one was lowered (so `s` may have returned)."""
        before = self.used
        self.used = False
        if isinstance(s, ast.If) and not getattr(s, _PLAIN, False):
            s.body = self._block(s.body, True, in_loop if in_if else False)
            s.orelse = self._block(s.orelse, True, in_loop if in_if else False)
        elif isinstance(s, (ast.For, ast.While, ast.AsyncFor)):
            s.body = self._block(s.body, in_if, True if in_if else False)
            s.orelse = self._block(s.orelse, in_if, in_loop)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self._block(s.body, in_if, in_loop)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            s.body = self._block(s.body, in_if, in_loop)
            for h in s.handlers:
                h.body = self._block(h.body, in_if, in_loop)
            s.orelse = self._block(s.orelse, in_if, in_loop)
            s.finalbody = self._block(s.finalbody, in_if, in_loop)
        elif isinstance(s, ast.Match):
            for case in s.cases:
                case.body = self._block(case.body, in_if, in_loop)
        lowered = self.used
        self.used = before or lowered
        return lowered


# --- names: assignments, reads, liveness ---------------------------------------------------------

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _stored_names(nodes):
    """Names bound by `nodes` in their own scope (not inside nested functions, classes, lambdas or
    comprehensions, except the walrus, which binds in the enclosing function), in first-seen order."""
    out = {}

    def visit(node, in_comp=False):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if not in_comp:
                out.setdefault(node.name)
            for d in node.decorator_list:
                visit(d, in_comp)
            return
        if isinstance(node, ast.Lambda):
            return
        if isinstance(node, _COMPREHENSIONS):
            for child in ast.iter_child_nodes(node):
                visit(child, True)
            return
        if isinstance(node, ast.NamedExpr):
            out.setdefault(node.target.id)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and not in_comp:
            out.setdefault(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.setdefault(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            out.setdefault(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            out.setdefault(node.rest)
        for child in ast.iter_child_nodes(node):
            visit(child, in_comp)

    for n in nodes:
        visit(n)
    return [n for n in out if not n.startswith("_sluice_if")]


def _own_nodes(scope):
    """The nodes of `scope` (a function, lambda or class) that belong to it: nested scopes are
    yielded but not entered."""
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _free_names(scope):
    """The names a nested function, lambda or class reads from the scopes around it."""
    bound = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        a = scope.args
        bound.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
        bound.update(x.arg for x in (a.vararg, a.kwarg) if x is not None)
    body = scope.body if isinstance(scope.body, list) else [scope.body]
    bound.update(_stored_names(body))
    free, declared = set(), set()
    for node in _own_nodes(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.comprehension):
            bound.update(n.id for n in ast.walk(node.target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            free.add(node.id)
        elif isinstance(node, _SCOPES):
            free |= _free_names(node)
    return (free - bound) | declared


def _reads(name, node):
    """Whether `node` (anything under it, nested functions included) reads `name`."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Load, ast.Del)):
            return True
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name:
            return True
    return False


def _scan(name, stmts):
    """'live' if `stmts`, run in order, may read `name` before binding it; 'dead' if they bind it
    first on every path; None if neither (the name's fate is decided after them)."""
    for s in stmts:
        r = _effect(name, s)
        if r is not None:
            return r
    return None


def _binds_directly(name, targets):
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                # a subscript/attribute store reads the object, which _reads already caught
                return True
    return False


def _effect(name, s):
    if isinstance(s, ast.Return):
        return "live" if s.value is not None and _reads(name, s.value) else "dead"
    if isinstance(s, (ast.Raise,)):
        return "live" if _reads(name, s) else "dead"
    if isinstance(s, ast.If):
        if _reads(name, s.test):
            return "live"
        b, o = _scan(name, s.body), _scan(name, s.orelse)
        if "live" in (b, o):
            return "live"
        return "dead" if b == "dead" and o == "dead" else None
    if isinstance(s, (ast.For, ast.AsyncFor)):
        if _reads(name, s.iter):
            return "live"
        if _scan(name, s.body) == "live" or _scan(name, s.orelse) == "live":
            return "live"
        return None
    if isinstance(s, ast.While):
        if _reads(name, s.test) or _scan(name, s.body) == "live" or _scan(name, s.orelse) == "live":
            return "live"
        return None
    if isinstance(s, (ast.With, ast.AsyncWith)):
        for item in s.items:
            if _reads(name, item.context_expr):
                return "live"
            if item.optional_vars is not None and _binds_directly(name, [item.optional_vars]):
                return "dead"
        return _scan(name, s.body)
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        if _reads(name, s):
            return "live"
        return "dead" if s.name == name else None
    if isinstance(s, ast.Assign):
        if _reads(name, s):
            return "live"
        return "dead" if _binds_directly(name, s.targets) else None
    if isinstance(s, ast.AnnAssign):
        if _reads(name, s):
            return "live"
        return "dead" if s.value is not None and _binds_directly(name, [s.target]) else None
    if isinstance(s, (ast.Import, ast.ImportFrom)):
        return "dead" if name in _stored_names([s]) else None
    if isinstance(s, (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue)):
        return None
    # Expr, AugAssign, Delete, Assert, Try, Match, ...: any mention is a read (conservative)
    return "live" if _reads(name, s) else None


def _live_after(name, path):
    """Whether `name` may be read after the statement at the end of `path` ([(block, index, owner)],
    outermost first, within one function)."""
    for stmts, idx, owner in reversed(path):
        r = _scan(name, stmts[idx + 1:])
        if r == "live":
            return True
        if r == "dead":
            return False
        if isinstance(owner, (ast.For, ast.AsyncFor, ast.While)) and (stmts is owner.body):
            test = owner.test if isinstance(owner, ast.While) else owner.iter
            if _reads(name, test) or _scan(name, owner.body) == "live" or _scan(name, owner.orelse) == "live":
                return True
        if isinstance(owner, (ast.Try, ast.ExceptHandler)) or type(owner).__name__ == "TryStar":
            if _reads(name, owner):
                return True
    return False


# --- the rewriter -------------------------------------------------------------------------------

class _Rewriter:
    """Rewrites the statements of one function (see the module's doc). Paths are lists of
    (block, index, owner): the statement at `index` of `block`, whose owner is the compound statement
    the block belongs to (None for the function's body)."""

    def __init__(self, filename):
        self.filename = filename
        self.counter = itertools.count()

    def visit_function(self, func, top=False):
        always = self._always_live(func)
        func.body = self._block(func.body, [], None, always)
        if not top:  # a nested def's defaults are evaluated where it is defined (the top one's are kept)
            func.args.defaults = [self._expr(d) for d in func.args.defaults]
            func.args.kw_defaults = [None if d is None else self._expr(d) for d in func.args.kw_defaults]

    def _always_live(self, func):
        """Names whose value may be read by code not scanned in order: free in a nested function or
        lambda (read when it is called), declared global/nonlocal; None (all) when locals() & co.
        are called."""
        names = set()
        for node in _own_nodes(func):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                names.update(node.names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _LIVE_ALWAYS:
                return None
            elif isinstance(node, _SCOPES):
                names |= _free_names(node)
        return names

    def _block(self, stmts, path, owner, always):
        out = []
        for i, s in enumerate(stmts):
            out.extend(self._stmt(s, path + [(stmts, i, owner)], always))
        return out

    def _stmt(self, s, path, always):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            s.decorator_list = [self._expr(d) for d in s.decorator_list]
            if isinstance(s, ast.FunctionDef):
                _Rewriter(self.filename).visit_function(s)
            return [s]
        if isinstance(s, ast.ClassDef):
            return [s]  # class bodies keep Python semantics (their scoping differs)
        if isinstance(s, ast.If):
            if not getattr(s, _PLAIN, False):
                return self._if(s, path, always)
            s.body = self._block(s.body, path, s, always)  # a generated guard: its test stays as it is
            s.orelse = self._block(s.orelse, path, s, always)
            return [s]
        for field, value in ast.iter_fields(s):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(s, field, self._block(value, path, s, always))
            elif isinstance(value, list):
                for j, item in enumerate(value):
                    if isinstance(item, ast.ExceptHandler):
                        item.body = self._block(item.body, path, s, always)
                        if item.type is not None:
                            item.type = self._expr(item.type)
                    elif isinstance(item, ast.match_case):
                        item.body = self._block(item.body, path, s, always)
                        if item.guard is not None:
                            item.guard = self._expr(item.guard)
                    elif isinstance(item, ast.withitem):
                        item.context_expr = self._expr(item.context_expr)
                    elif isinstance(item, ast.expr):
                        value[j] = self._expr(item)
            elif isinstance(value, ast.expr):
                setattr(s, field, self._expr(value))
        return [s]

    def _if(self, node, path, always):
        var = f"_sluice_if{next(self.counter)}"
        names = _stored_names(node.body + node.orelse)
        outputs = [i for i, n in enumerate(names)
                   if n != _DO_RETURN and (n == _RETVAL or always is None or n in always or _live_after(n, path))]
        test = self._expr(node.test)
        body = self._block(node.body, path, node, always) or [ast.Pass()]
        orelse = self._block(node.orelse, path, node, always) or [ast.Pass()]

        def attr(name):
            return ast.Attribute(value=_name(var), attr=name, ctx=ast.Load())

        def call(method, *args):
            return ast.Call(func=attr(method), args=list(args), keywords=[])

        def getters():
            no_args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                    defaults=[])
            return ast.Tuple(elts=[ast.Lambda(args=no_args, body=_name(n)) for n in names], ctx=ast.Load())

        def restore(method):
            if not names:
                return [ast.Expr(value=call(method, getters()))]
            stmts = [ast.Assign(targets=[ast.Tuple(elts=[_name(n, ast.Store) for n in names], ctx=ast.Store())],
                                value=call(method, getters()))]
            for i, n in enumerate(names):  # a variable unbound before the `if` is unbound again
                stmts.append(_plain_if(call("undef", ast.Constant(i)), [ast.Delete(targets=[_name(n, ast.Del)])]))
            return stmts

        make = ast.Assign(targets=[_name(var, ast.Store)], value=ast.Call(
            func=ast.Attribute(value=_name(_AG), attr="if_", ctx=ast.Load()),
            args=[test, ast.Constant(self.filename), ast.Constant(node.lineno),
                  ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load()),
                  ast.Tuple(elts=[ast.Constant(i) for i in outputs], ctx=ast.Load()),
                  ast.Constant(_leaves_loop(node.body + node.orelse))], keywords=[]))
        out = [make,
               _plain_if(attr("dn"), [ast.Expr(value=call("begin", getters()))]),
               _plain_if(call("then"), body),
               _plain_if(attr("dn"), restore("middle")),
               _plain_if(call("orelse"), orelse),
               _plain_if(attr("dn"), restore("end"))]
        for stmt in out:
            _locate(stmt, node)
        return out

    def _expr(self, expr):
        return _ExprRewriter(self.filename).visit(expr)


def _leaves_loop(stmts):
    """Whether `stmts` have a `break` or `continue` of a loop around them."""
    for s in stmts:
        if isinstance(s, (ast.Break, ast.Continue)):
            return True
        if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            if _leaves_loop(s.orelse):
                return True
            continue
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _leaves_loop([b for b in block if isinstance(b, ast.stmt)]):
                return True
        for h in getattr(s, "handlers", []) or []:
            if _leaves_loop(h.body):
                return True
        for case in getattr(s, "cases", []) or []:
            if _leaves_loop(case.body):
                return True
    return False


def _locate(tree, ref):
    """Gives every node under `tree` without a location the first line of statement `ref` (from its
    start to the end of its test when that is on the same line), so that a traceback through
    generated code shows the user's ``if <test>`` line; the user's nodes keep their locations."""
    test = getattr(ref, "test", None)
    end = test.end_col_offset if test is not None and test.end_lineno == ref.lineno else ref.col_offset + 2
    for sub in ast.walk(tree):
        if "lineno" in sub._attributes and getattr(sub, "lineno", None) is None:
            sub.lineno, sub.end_lineno, sub.col_offset, sub.end_col_offset = ref.lineno, ref.lineno, ref.col_offset, end


class _ExprRewriter(ast.NodeTransformer):
    """``and``/``or``/``not`` and calls inside one expression; lambdas' bodies too."""

    def __init__(self, filename):
        self.filename = filename

    def _ag(self, attr, node):
        return ast.copy_location(ast.Attribute(value=ast.copy_location(_name(_AG), node), attr=attr,
                                               ctx=ast.Load()), node)

    def visit_BoolOp(self, node):
        values = [self.visit(v) for v in node.values]
        if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await))
               for v in node.values[1:] for n in ast.walk(v)):
            node.values = values
            return node  # keeps Python's evaluation (a lambda would change where the walrus binds)
        helper = "and_" if isinstance(node.op, ast.And) else "or_"
        result = values[-1]
        for left in reversed(values[:-1]):
            thunk = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                                  kwarg=None, defaults=[]), body=result)
            ast.copy_location(thunk, result)
            result = ast.Call(func=self._ag(helper, node), args=[left, thunk, ast.Constant(self.filename),
                                                                 ast.Constant(node.lineno)], keywords=[])
            ast.copy_location(result, node)
        return result

    def visit_UnaryOp(self, node):
        node.operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(ast.Call(func=self._ag("not_", node), args=[
                node.operand, ast.Constant(self.filename), ast.Constant(node.lineno)], keywords=[]), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("super", "locals", "vars", "eval", "exec", "globals"):
            return node
        node.func = ast.copy_location(ast.Call(func=self._ag("cv", node), args=[f], keywords=[]), f)
        return node

    def visit_Lambda(self, node):
        node.body = self.visit(node.body)
        return node
