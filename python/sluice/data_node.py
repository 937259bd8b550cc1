"""DataNode: a symbolic batch in a pipeline graph, the output of one operator call.

Arithmetic with a Python number (``images * 2``, ``1 - x``, ``labels / 4``) adds an
``arithmetic.scalar`` operator. Types follow DALI's promotion, simplified: an integer tensor with an
integer constant keeps its type, anything with a float constant or a true division gives float32,
a float tensor keeps its type.
"""
import numbers


class DataNode:
    def __init__(self, call, index):
        self._call = call
        self._index = index

    @property
    def name(self):
        return f"{self._call.display_name}[{self._index}]"

    @property
    def device(self):
        return "cpu" if self._call.device == "cpu" else "gpu"

    @property
    def source_call(self):
        """The operator call that produces this node (internal)."""
        return self._call

    @property
    def index(self):
        return self._index

    def __repr__(self):
        return f"DataNode(name={self.name!r}, device={self.device!r})"

    def gpu(self):
        """This data copied to the GPU (DALI's ``.gpu()``): a ``copy`` operator with device="mixed"."""
        from .graph import call_operator

        return call_operator("copy", [self], {}, device="mixed")[0]

    def __bool__(self):
        raise TypeError("a DataNode is symbolic: it has no truth value (conditionals are not supported)")

    # Arithmetic with constants.
    def __add__(self, other): return _scalar_op(self, "add", other)
    def __radd__(self, other): return _scalar_op(self, "add", other)
    def __sub__(self, other): return _scalar_op(self, "sub", other)
    def __rsub__(self, other): return _scalar_op(self, "rsub", other)
    def __mul__(self, other): return _scalar_op(self, "mul", other)
    def __rmul__(self, other): return _scalar_op(self, "mul", other)
    def __truediv__(self, other): return _scalar_op(self, "div", other)
    def __rtruediv__(self, other): return _scalar_op(self, "rdiv", other)
    def __neg__(self): return _scalar_op(self, "mul", -1)
    def __pos__(self): return self


def _scalar_op(node, operation, other):
    if isinstance(other, DataNode):
        raise TypeError("arithmetic between two DataNodes is not supported yet; use a constant operand")
    if isinstance(other, bool) or not isinstance(other, numbers.Real):
        return NotImplemented
    from .graph import call_operator  # graph imports DataNode

    is_int = isinstance(other, numbers.Integral)
    return call_operator("arithmetic.scalar", [node],
                         {"operation": operation, "scalar": float(other), "integer_scalar": is_int},
                         device=node._call.device)[0]
