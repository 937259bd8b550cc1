"""The statements converted code calls at run time: ``if_`` (an :class:`_IfStatement`), ``and_``,
``or_``, ``not_`` (as ``_sluice_ag.if_(...)`` and so on; see the package's doc for the shape of a
rewritten ``if``).

With Python values they behave exactly as Python's ``if``/``and``/``or``/``not``. With a DataNode
condition (and a pipeline with conditionals being defined) both branches are traced, each in its
own scope of the :class:`~.scopes.ConditionStack`, and the variables read after the ``if`` are
merged per sample; every code path must assign them, with the same nesting structure (else
RuntimeError, TypeError or ValueError naming the variable and the user's line).
"""
from ..errors import SluiceError
from ..graph import DataNode
from .generated import _DO_RETURN, _RETVAL
from .scopes import UNDEFINED, UNDEFINED_RETURN, _read, _where, current_stack
from .structure import _assert_same_structure, _flatten, _map_structure, _map_structure2


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
        from ..types import Constant
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
