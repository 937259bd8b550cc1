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

The modules:

* :mod:`.convert`: :func:`convert` (the entry point, cached), :func:`cv` (the callee of every call
  made by converted code), :func:`convert_pipeline_function`, :func:`do_not_convert`; the module is
  also the ``_sluice_ag`` namespace converted code calls;
* :mod:`.returns`: the canonicalisation and lowering of ``return`` inside ``if``;
* :mod:`.rewrite`: the statement and expression rewriters;
* :mod:`.liveness`: which names a statement binds and which are read after it;
* :mod:`.generated`: the names generated code reserves and the AST builders of its statements;
* :mod:`.scopes`: :class:`ConditionStack` and its scopes (the splits, merges and checked predicates);
* :mod:`.statements`: what the rewritten code calls at run time (``if_``, ``and_``, ``or_``, ``not_``);
* :mod:`.structure`: tuples, lists and dicts of DataNodes (flattened, mapped, compared);
* :mod:`.fn_conditional`: ``fn._conditional.*``, DALI's internal operators, for code calling them.

This package re-exports what the rest of Sluice and the tests use (``ConditionStack``, ``convert``,
``convert_pipeline_function``, ``do_not_convert``, ``install``) and the runtime entry points.
"""
from .convert import convert, convert_pipeline_function, cv, do_not_convert
from .fn_conditional import install
from .scopes import UNDEFINED, UNDEFINED_RETURN, ConditionStack, current_stack, stack_of
from .statements import and_, if_, not_, or_

__all__ = ["ConditionStack", "UNDEFINED", "UNDEFINED_RETURN", "and_", "convert", "convert_pipeline_function",
           "current_stack", "cv", "do_not_convert", "if_", "install", "not_", "or_", "stack_of"]
