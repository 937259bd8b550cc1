"""Names in a function's AST: which a block binds, which a nested scope reads, and which may be
read after a statement.

The rewrite merges only the variables an ``if`` assigns that are read after it
(:func:`_live_after`, a conservative scan of the code that follows: when in doubt, live).
Pure functions of the AST.
"""
import ast

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
