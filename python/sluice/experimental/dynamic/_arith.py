"""Arithmetic operators of Tensor and Batch: each builds the graph-mode expression on DataNodes
(so types promote as in DALI and as in a pipeline) and runs it as one cached graph: `runner`,
which ``_ops`` sets to its ``call_expression`` when imported (``_ops`` imports the classes this
module equips, so it cannot be imported from here)."""
import operator

runner = None  # call_expression(name, func, operands), set by _ops

_BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
           "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
           "or": operator.or_, "xor": operator.xor, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt,
           "le": operator.le, "gt": operator.gt, "ge": operator.ge}
_REFLECTED = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor")


def _method(name, func, reflected):
    def method(self, other):
        operands = (other, self) if reflected else (self, other)
        return runner(name, func, operands)

    method.__name__ = f"__r{name}__" if reflected else f"__{name}__"
    return method


def install_operators(cls):
    """Adds the arithmetic and comparison operators to `cls` (Tensor or Batch)."""
    for name, func in _BINARY.items():
        setattr(cls, f"__{name}__", _method(name, func, False))
    for name in _REFLECTED:
        setattr(cls, f"__r{name}__", _method(name, _BINARY[name], True))

    def __neg__(self):
        return runner("neg", operator.neg, (self,))

    def __pos__(self):
        return self

    cls.__neg__ = __neg__
    cls.__pos__ = __pos__
    cls.__hash__ = object.__hash__
    cls.__array_ufunc__ = None  # NumPy scalars defer to the reflected operators
