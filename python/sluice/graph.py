"""The pipeline graph: DataNodes (symbolic batches) and the operator calls that produce them.

``call_operator`` is what every ``fn.*`` function and ``ops.*`` instance ends in. The C++ core
validates the call where it is made (``sluice::ValidateOperator``, exactly what
``Pipeline::AddOperator`` runs: operator and argument names with suggestions, types, ranges,
enumerations, layouts, per-sample arguments, input count), so a bad call raises
:class:`~sluice.errors.ArgumentError` at the line that wrote it, not at ``build()``. The validated
definition is kept and added to the C++ pipeline at ``build()``.

Arithmetic with a Python number (``images * 2``, ``1 - x``, ``labels / 4``) adds an
``arithmetic.scalar`` operator. Types follow DALI's promotion, simplified: an integer tensor with an
integer constant keeps its type, anything with a float constant or a true division gives float32,
a float tensor keeps its type.
"""
import itertools
import numbers

from . import _sluice, current
from .device import check_cuda
from .errors import ArgumentError
from .schema import get_schema
from .types import to_schema_value

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
    is_int = isinstance(other, numbers.Integral)
    return call_operator("arithmetic.scalar", [node],
                         {"operation": operation, "scalar": float(other), "integer_scalar": is_int},
                         device=node._call.device)[0]


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
