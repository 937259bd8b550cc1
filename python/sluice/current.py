"""The current pipeline: the stack of ``with pipe:`` blocks, per thread.

A leaf module (it imports nothing from the package): operator calls ask it which pipeline they are
made in, and ``Pipeline.__enter__``/``__exit__`` push and pop.
"""
import threading

_local = threading.local()


def _stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def push(pipeline):
    _stack().append(pipeline)


def pop():
    return _stack().pop()


def current():
    """The pipeline of the innermost ``with pipe:`` block in this thread (or being built), or None."""
    stack = _stack()
    return stack[-1] if stack else None
