"""The pipeline graph: DataNodes (symbolic batches) and the operator calls that produce them.

``call_operator`` is what every ``fn.*`` function and ``ops.*`` instance ends in. The C++ core
validates the call where it is made (``sluice::ValidateOperator``, exactly what
``Pipeline::AddOperator`` runs: operator and argument names with suggestions, types, ranges,
enumerations, layouts, per-sample arguments, input count), so a bad call raises
:class:`~sluice.errors.ArgumentError` at the line that wrote it, not at ``build()``. The validated
definition is kept and added to the C++ pipeline at ``build()``.

Arithmetic on DataNodes (``images * 2``, ``1 - x``, ``a + b * 2 - c``, comparisons, ``& | ^``) and
the functions of :mod:`sluice.math` build an expression; a chain becomes ONE
``arithmetic.expression`` operator, made when the result is first used by another operator or as a
pipeline output. Types follow DALI's promotion table; a Python int or float constant takes the
tensor operand's type when it can (an integer tensor with an int keeps its type; with a float it
becomes float32; a float tensor keeps its type); ``/`` of integers gives float32.
"""
import itertools
import numbers

from . import _sluice, current
from .device import check_cuda
from .errors import ArgumentError
from .schema import get_schema, to_schema_value

_ids = itertools.count()
_DEVICES = ("cpu", "mixed", "gpu")


class DataNode:
    """A symbolic batch: output ``index`` of one operator call."""

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
        """This data copied to the GPU (DALI's ``.gpu()``): a ``copy`` operator with device="mixed".
        Without the CUDA backend or a GPU it raises SluiceError saying so (never a silent CPU copy)."""
        if self.device == "gpu":
            return self
        check_cuda(f"{self.name}.gpu()", "mixed")
        return call_operator("copy", [self], {}, device="mixed")[0]

    def __bool__(self):
        raise TypeError("a DataNode is symbolic: it has no truth value (conditionals are not supported)")

    # Arithmetic (DALI's mathematical expressions): every operator builds a lazy expression node;
    # chains are fused into one arithmetic.expression call, made when the node is first used.
    __hash__ = object.__hash__  # defining __eq__ would otherwise make DataNodes unhashable
    # NumPy defers to DataNode's reflected operators (np.uint8(255) - node is node.__rsub__(...)),
    # instead of wrapping the node in an object array.
    __array_ufunc__ = None

    def __add__(self, other): return _binary("add", self, other)
    def __radd__(self, other): return _binary("add", other, self)
    def __sub__(self, other): return _binary("sub", self, other)
    def __rsub__(self, other): return _binary("sub", other, self)
    def __mul__(self, other): return _binary("mul", self, other)
    def __rmul__(self, other): return _binary("mul", other, self)
    def __truediv__(self, other): return _binary("div", self, other)
    def __rtruediv__(self, other): return _binary("div", other, self)
    def __floordiv__(self, other): return _binary("floordiv", self, other)
    def __rfloordiv__(self, other): return _binary("floordiv", other, self)
    def __mod__(self, other): return _binary("mod", self, other)
    def __rmod__(self, other): return _binary("mod", other, self)
    def __pow__(self, other): return _binary("pow", self, other)
    def __rpow__(self, other): return _binary("pow", other, self)
    def __and__(self, other): return _binary("bitand", self, other)
    def __rand__(self, other): return _binary("bitand", other, self)
    def __or__(self, other): return _binary("bitor", self, other)
    def __ror__(self, other): return _binary("bitor", other, self)
    def __xor__(self, other): return _binary("bitxor", self, other)
    def __rxor__(self, other): return _binary("bitxor", other, self)
    def __eq__(self, other): return _binary("eq", self, other)
    def __ne__(self, other): return _binary("ne", self, other)
    def __lt__(self, other): return _binary("lt", self, other)
    def __le__(self, other): return _binary("le", self, other)
    def __gt__(self, other): return _binary("gt", self, other)
    def __ge__(self, other): return _binary("ge", self, other)
    def __neg__(self): return expression("neg", self)

    def shape(self, dtype=None, device="cpu"):
        """The shape of each sample as a 1-D tensor (DALI's ``DataNode.shape()``, which DALI
        recommends over its deprecated ``fn.shapes``); ``dtype`` defaults to int64."""
        if device != "cpu":
            raise ValueError(f"{self.name}.shape(): device must be 'cpu' (shapes are computed on the host)")
        kwargs = {} if dtype is None else {"dtype": dtype}
        return call_operator("shapes", [self], kwargs)[0]

    def __getitem__(self, index):
        """``x[i]``: element i of the outermost dimension of every sample (``shape[1]`` of a batch of
        shapes is the width). Only a single non-negative integer index (DALI also takes slices and
        negative indices)."""
        if isinstance(index, bool) or not isinstance(index, numbers.Integral) or index < 0:
            raise TypeError(f"{self.name}[{index!r}]: a DataNode takes a single non-negative integer index")
        return call_operator("element_extract", [self], {"element_map": [int(index)]})[0]
    def __pos__(self): return self


_MAX_EXPR_INPUTS = 64


def _operand(value, op):
    """A Python value -> an expression tree: ("in", DataNode), ("c", text) or (op, *children)."""
    if isinstance(value, ExpressionNode) and "_call" not in value.__dict__:
        return value._tree
    if isinstance(value, DataNode):
        return ("in", value)
    if isinstance(value, bool):
        return ("c", f"${int(value)}:bool")
    if isinstance(value, numbers.Integral) and type(value).__module__ != "numpy":
        v = int(value)
        if not -2**63 <= v < 2**63:
            raise ValueError(f"arithmetic: the constant {v} does not fit in int64")
        return ("c", f"${v}:int")
    if isinstance(value, numbers.Real) and type(value).__module__ != "numpy":
        return ("c", f"${float(value)!r}:float")
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        import numpy as np
        arr = np.asarray(value)
        name = {"uint32": "int64", "uint64": "int64", "float128": "float64"}.get(arr.dtype.name, arr.dtype.name)
        if arr.dtype.kind == "b":
            return ("c", f"${int(arr)}:bool")
        if arr.dtype.kind in "iu":
            return ("c", f"${int(arr)}:{name}")
        if arr.dtype.kind == "f":
            return ("c", f"${float(arr)!r}:{name}")
    if isinstance(value, (list, tuple)) or type(value).__module__ == "numpy":
        node = _constant_input("arithmetic.expression", 0, value)
        if isinstance(node, DataNode):
            return ("in", node)
    return None


def _leaves(tree, out):
    if tree[0] == "in":
        if all(n is not tree[1] for n in out):
            out.append(tree[1])
    elif tree[0] != "c":
        for child in tree[1:]:
            _leaves(child, out)
    return out


def expression(op, *operands):
    """An expression node `op(operands...)` (DataNodes, expression nodes, Python numbers); NotImplemented
    when an operand is not something arithmetic takes (so Python tries the reflected operator)."""
    trees = [_operand(v, op) for v in operands]
    if any(t is None for t in trees):
        return NotImplemented
    if not any(isinstance(v, DataNode) for v in operands) and not any(t[0] == "in" for t in trees):
        raise TypeError(f"arithmetic {op}: at least one operand must be a DataNode")
    tree = (op, *trees)
    if len(_leaves(tree, [])) > _MAX_EXPR_INPUTS:  # too many inputs for one operator: materialise the operands
        trees = [("in", v) if isinstance(v, DataNode) else t for v, t in zip(operands, trees)]
        tree = (op, *trees)
    return ExpressionNode(tree)


def _binary(op, left, right):
    return expression(op, left, right)


def _serialise(tree, leaves):
    if tree[0] == "in":
        return "&" + str(next(i for i, n in enumerate(leaves) if n is tree[1]))
    if tree[0] == "c":
        return tree[1]
    return tree[0] + "(" + ",".join(_serialise(t, leaves) for t in tree[1:]) + ")"


class ExpressionNode(DataNode):
    """The result of DataNode arithmetic or a sluice.math function: an expression over DataNodes and
    constants. Used as an operand of further arithmetic, its expression is inlined (one fused operator
    per chain); anything else that reads it (an operator, a pipeline output, ``name``) makes the
    ``arithmetic.expression`` call, once."""

    def __init__(self, tree):  # noqa: super().__init__ is not called: _call is made lazily
        self._tree = tree
        self._pipeline = current.current()

    @property
    def expression(self):
        """The expression in arithmetic.expression's text form (inputs numbered by first use)."""
        return _serialise(self._tree, _leaves(self._tree, []))

    @property
    def device(self):
        if "_call" in self.__dict__:
            return DataNode.device.fget(self)
        return "gpu" if any(n.device == "gpu" for n in _leaves(self._tree, [])) else "cpu"

    def __getattr__(self, attr):
        if attr in ("_call", "_index"):
            self._materialise()
            return self.__dict__[attr]
        raise AttributeError(attr)

    def _materialise(self):
        leaves = _leaves(self._tree, [])
        text = _serialise(self._tree, leaves)
        pushed = self._pipeline is not None and current.current() is not self._pipeline
        if pushed:
            current.push(self._pipeline)
        try:
            device = "gpu" if any(n.device == "gpu" for n in leaves) else "cpu"
            call = make_call("arithmetic.expression", leaves, {"expression": text}, device=device)
        finally:
            if pushed:
                current.pop()
        call.outputs[0] = self
        self.__dict__["_call"] = call
        self.__dict__["_index"] = 0
        if call.pipeline is not None:
            call.pipeline._record_call(call)


class OpCall:
    """One validated operator call. ``op_def``: the C++ OperatorDef that validate_operator returned
    (constant arguments normalised); ``inputs``: DataNodes; ``arg_inputs``: argument -> DataNode."""

    def __init__(self, schema, op_def, name, inputs, arg_inputs, pipeline):
        self.id = next(_ids)
        self.schema = schema
        self.op_def = op_def
        self.device = op_def.device
        self.name = name  # user-given instance name, or None
        self.inputs = list(inputs)
        self.arg_inputs = dict(arg_inputs)
        self.pipeline = pipeline
        self.external_source = None  # ExternalSourceGroup for external_source calls
        self.outputs = [DataNode(self, i) for i in range(len(op_def.outputs))]

    @property
    def display_name(self):
        return self.name or f"{self.schema.name}#{self.id}"

    @property
    def args(self):
        """The constant arguments as validated (coerced to the schema's types)."""
        return self.op_def.args

    def preserve(self):
        return bool(self.args.get("preserve", False))

    def add_to(self, cpp_pipeline, edges):
        """Adds this call to a C++ pipeline; `edges` maps DataNode -> edge name and is updated."""
        out = cpp_pipeline.add_operator(self.op_def, self.name or "", [edges[n] for n in self.inputs],
                                        {a: edges[n] for a, n in self.arg_inputs.items()})
        for node, edge in zip(self.outputs, out):
            edges[node] = edge


def check_device(schema, device):
    """The device checks the schema cannot make: the name, and whether CUDA can run here."""
    if device not in _DEVICES:
        raise ArgumentError(f"{schema.name}: device must be one of 'cpu', 'mixed', 'gpu', got {device!r}",
                            op=schema.name, argument="device")
    if device != "cpu":
        check_cuda(schema.name, device)  # before the schema's backends: the cause is CUDA, not the operator


def _split_arguments(kwargs):
    """kwargs -> (constants for the C++ validation, per-sample DataNodes). None means "not given"."""
    args, arg_inputs = {}, {}
    for arg, value in kwargs.items():
        if isinstance(value, DataNode):
            arg_inputs[arg] = value
        elif value is not None:
            args[arg] = to_schema_value(value)
    return args, arg_inputs


def _validate(op_name, device, name, input_names, args, arg_inputs):
    return _sluice.validate_operator(op_name, name or "", device, list(input_names),
                                     {a: n.name for a, n in arg_inputs.items()}, args)


def _constant_input(op_name, index, value):
    """DALI's types.Constant for positional inputs: a number, a (nested) list or tuple of numbers or a
    NumPy array becomes a ``constant`` node (``fn.random.choice(5)``, ``fn.random.choice([1, 2, 3])``).
    Shape and type come from the value, as NumPy infers them, except that 64-bit types become 32-bit
    (DALI's rule: Python ints are int32, floats float32). Anything else is returned unchanged."""
    if isinstance(value, DataNode) or not isinstance(value, (numbers.Number, list, tuple)) and \
            type(value).__module__ != "numpy":
        return value
    import numpy as np
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        return value
    kind = arr.dtype.kind
    if kind not in "biuf":
        return value
    dtype = {"int64": "int32", "uint64": "uint32", "float64": "float32"}.get(arr.dtype.name, arr.dtype.name)
    if dtype == "uint32":
        dtype = "int64"  # no uint32 in sluice's types: the smallest type that holds it
    flat = arr.reshape(-1)
    data = {"fdata": [float(x) for x in flat]} if kind == "f" else {"idata": [int(x) for x in flat]}
    return call_operator("constant", [], dict(data, shape=list(arr.shape), dtype=dtype), device="cpu")[0]


def make_call(op_name, inputs, kwargs, device="cpu", name=None):
    """Validates one operator call (raising ArgumentError) and returns its OpCall, not yet added to
    any C++ pipeline."""
    schema = get_schema(op_name)
    check_device(schema, device)
    inputs = [_constant_input(schema.name, i, node) for i, node in enumerate(inputs)]
    for i, node in enumerate(inputs):
        if not isinstance(node, DataNode):
            raise TypeError(f"{schema.name}: input {i} must be a DataNode (an operator's output), "
                            f"got {type(node).__name__}")
    args, arg_inputs = _split_arguments(kwargs)
    op_def = _validate(op_name, device, name, [n.name for n in inputs], args, arg_inputs)
    return OpCall(schema, op_def, name, inputs, arg_inputs, current.current())


def check_arguments(op_name, device, name, kwargs):
    """Validates the arguments given to an ``ops`` constructor, before any input is known: raises
    the C++ validation's ArgumentError when it is about one of `kwargs` (or the device). What
    depends on the call (inputs, required arguments given then) is checked at the call."""
    schema = get_schema(op_name)
    check_device(schema, device)
    args, arg_inputs = _split_arguments(kwargs)
    try:
        _validate(op_name, device, name, [f"input{i}" for i in range(schema.min_inputs)], args, arg_inputs)
    except ArgumentError as e:
        if e.argument in kwargs or e.argument in ("device", "name"):
            raise


def call_operator(op_name, inputs, kwargs, device=None, name=None):
    """Makes a call and returns its outputs (a list of DataNodes). Without a device, the operator
    runs where its inputs are, as in DALI: on the GPU if any input is GPU data, else on the CPU."""
    if device is None:
        device = "gpu" if any(isinstance(n, DataNode) and n.device == "gpu" for n in inputs) else "cpu"
    call = make_call(op_name, inputs, kwargs, device=device, name=name)
    if call.pipeline is not None:
        call.pipeline._record_call(call)
    return call.outputs


def collect_calls(outputs, extra=()):
    """Every call that `outputs` depend on, plus `extra`, in creation order (a topological order)."""
    seen = {}
    stack = [n.source_call for n in outputs] + list(extra)
    while stack:
        call = stack.pop()
        if call.id in seen:
            continue
        seen[call.id] = call
        stack.extend(n.source_call for n in call.inputs)
        stack.extend(n.source_call for n in call.arg_inputs.values())
    return [seen[k] for k in sorted(seen)]
