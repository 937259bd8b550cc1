"""``return`` inside ``if``: canonicalised and lowered before the rewrite.

:func:`_canonicalize_returns` first moves the statements after an ``if`` one of whose branches
definitely returns into its other branch (AutoGraph's canonicalisation; code after a ``return`` is
dropped), then :class:`_ReturnLowering` turns each remaining ``return`` inside an ``if`` into
assignments of ``_sluice_do_return``/``_sluice_retval``, which the ``if`` merges like any other
output, and returns after it. Works on the AST in place; nested functions get their own pass.
"""
import ast

from .generated import _AG, _DO_RETURN, _PLAIN, _RETVAL, _assign, _name, _plain_if


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
