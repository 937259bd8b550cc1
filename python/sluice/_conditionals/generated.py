"""What the rewrite and the code it generates agree on: the reserved names and the AST builders of
generated statements.

``_AG`` (``_sluice_ag``) is the free variable through which converted code calls the runtime
(:mod:`.convert` binds it to its own module); ``_RETVAL`` and ``_DO_RETURN`` are the variables a
lowered ``return`` assigns (:mod:`.returns`), which :mod:`.statements` treats specially when it
merges; ``_PLAIN`` marks a generated ``if`` that the rewriter leaves as it is. A user function must
not use these names.
"""
import ast

_AG = "_sluice_ag"
_RETVAL = "_sluice_retval"
_DO_RETURN = "_sluice_do_return"
_PLAIN = "_sluice_plain"   # an attribute on generated `if` nodes: not rewritten


def _name(id_, ctx=ast.Load):
    return ast.Name(id=id_, ctx=ctx())


def _assign(target, value):
    return ast.Assign(targets=[_name(target, ast.Store)], value=value, lineno=0)


def _plain_if(test, body, orelse=()):
    node = ast.If(test=test, body=list(body), orelse=list(orelse))
    setattr(node, _PLAIN, True)
    return node
