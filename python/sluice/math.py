"""DALI's ``nvidia.dali.math``: elementwise functions of DataNodes, part of the same expression as
DataNode arithmetic (``math.clamp(images * 1.25, 0, 255)`` is one ``arithmetic.expression`` operator).

Result types follow DALI: ``abs``, ``min``, ``max``, ``clamp`` and ``pow`` keep the (promoted) operand
type; the others (``fabs``, ``floor``, ``ceil``, ``sqrt``, ``exp``, trigonometric and hyperbolic
functions, ``fpow``, ``atan2``) give a float: the operand's float type, or float32 for integers.
"""
from .graph import expression as _expression

__all__ = ["abs", "fabs", "floor", "ceil", "pow", "fpow", "min", "max", "clamp", "sqrt", "rsqrt", "cbrt", "exp",
           "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
           "acosh", "atanh", "atan2"]


def _call(name, *args):
    node = _expression(name, *args)
    if node is NotImplemented:
        raise TypeError(f"sluice.math.{name}: the operands must be DataNodes or numbers, got "
                        + ", ".join(type(a).__name__ for a in args))
    return node


def _unary(name, doc):
    def f(input):
        return _call(name, input)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _binary(name, doc):
    def f(left, right):
        return _call(name, left, right)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


abs = _unary("abs", "Absolute value; keeps the input type.")
fabs = _unary("fabs", "Absolute value as a float.")
floor = _unary("floor", "Rounds down; a float (float32 for integer inputs).")
ceil = _unary("ceil", "Rounds up; a float (float32 for integer inputs).")
sqrt = _unary("sqrt", "Square root.")
rsqrt = _unary("rsqrt", "1 / sqrt(x).")
cbrt = _unary("cbrt", "Cube root.")
exp = _unary("exp", "e ** x.")
log = _unary("log", "Natural logarithm.")
log2 = _unary("log2", "Base-2 logarithm.")
log10 = _unary("log10", "Base-10 logarithm.")
sin = _unary("sin", "Sine (radians).")
cos = _unary("cos", "Cosine (radians).")
tan = _unary("tan", "Tangent (radians).")
asin = _unary("asin", "Arcsine.")
acos = _unary("acos", "Arccosine.")
atan = _unary("atan", "Arctangent.")
sinh = _unary("sinh", "Hyperbolic sine.")
cosh = _unary("cosh", "Hyperbolic cosine.")
tanh = _unary("tanh", "Hyperbolic tangent.")
asinh = _unary("asinh", "Inverse hyperbolic sine.")
acosh = _unary("acosh", "Inverse hyperbolic cosine.")
atanh = _unary("atanh", "Inverse hyperbolic tangent.")
pow = _binary("pow", "base ** exponent with type promotion (integers stay integers).")
fpow = _binary("fpow", "base ** exponent as a float.")
min = _binary("min", "Elementwise minimum, with type promotion.")
max = _binary("max", "Elementwise maximum, with type promotion.")
atan2 = _binary("atan2", "Arctangent of left / right, in the right quadrant; a float.")


def clamp(input, lo, hi):
    """min(max(input, lo), hi), with type promotion of the three operands."""
    return _call("clamp", input, lo, hi)
