"""The rewriter of one function's statements and expressions (see the package's doc for the shape of
the generated code).

:class:`_Rewriter` turns every ``if`` into straight-line code around its two branches (calls of
``_sluice_ag.if_`` and of the statement's ``begin``/``then``/``middle``/``orelse``/``end``);
:class:`_ExprRewriter` turns ``and``/``or``/``not`` into ``_sluice_ag.and_``/``or_``/``not_`` with
a thunk for the lazily evaluated operand, and every call ``f(...)`` into ``_sluice_ag.cv(f)(...)``.
Generated nodes carry the user's ``if`` line (:func:`_locate`). Class bodies are left as they are.
"""
import ast
import itertools

from .generated import _AG, _DO_RETURN, _PLAIN, _RETVAL, _name, _plain_if
from .liveness import _SCOPES, _free_names, _live_after, _own_nodes, _stored_names

_LIVE_ALWAYS = ("locals", "vars", "eval", "exec")


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
