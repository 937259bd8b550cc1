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
pipeline output. Types follow DALI's promotion table, with a Python int typed INT32 (INT64 beyond
its range) and a float FLOAT, as DALI types them (``uint8_images + 1`` is int32; a typed constant,
``types.Constant(1).uint8()``, keeps uint8); ``/`` of integers gives float32.
"""
import itertools
import numbers
import warnings

from . import _sluice, current
from .device import check_cuda
from .errors import ArgumentError, SluiceError
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
        raise TypeError("a DataNode is symbolic: it has no truth value. To branch per sample, use `if`, `and`, `or` "
                        "and `not` in a function decorated with @pipeline_def(enable_conditionals=True); "
                        "`x if cond else y`, `while` and `assert` on a DataNode are not supported (nor in DALI)")

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
        """DALI's DataNode indexing, per sample: ``x[2]``, ``x[-1]``, ``x[1:3]``, ``x[:, 0]``,
        ``x[::2]`` (Sluice takes steps; DALI refuses them), ``x[..., 0]`` (Sluice only), an index or
        bound given as a DataNode of per-sample integers, and ``sluice.newaxis`` (optionally named:
        ``x[newaxis("F")]``). An index removes its dimension (and its layout letter); a slice keeps
        it. Runs ``tensor_subscript`` (or ``subscript_dim_check`` when nothing is selected), then
        ``expand_dims`` for new axes."""
        return _subscript(self, index)

    def cpu(self):
        """This data on the CPU (DALI's ``.cpu()``): a CPU node is returned as it is; GPU data cannot
        come back to the CPU in Sluice's executor, which raises saying so."""
        if self.device == "cpu":
            return self
        raise ArgumentError(f"{self.name}.cpu(): GPU data cannot return to the CPU stage in Sluice's executor "
                            "(DALI allows it only with exec_dynamic=True); move the CPU work before .gpu()",
                            op=self._call.display_name)

    def property(self, key, *, device="cpu"):
        """A metadata property of each sample (DALI's ``DataNode.property``): ``"source_info"`` (the
        file or ``archive.tar:member`` it came from) or ``"layout"``, as 1-D uint8 tensors of UTF-8."""
        if device != "cpu":
            raise ValueError(f"{self.name}.property(): device must be 'cpu'")
        return call_operator("get_property", [self], {"key": key})[0]

    def get(self):
        """The data, in debug mode only (``pipeline_def(debug=True)``); a graph's DataNode is symbolic."""
        raise SluiceError(f"{self.name}.get(): a DataNode holds data only in debug mode "
                          "(sluice.pipeline.experimental.pipeline_def(debug=True)); run the pipeline to get outputs")

    def source_info(self, *, device="cpu"):
        """``self.property("source_info")``."""
        return self.property("source_info", device=device)
    def __pos__(self): return self


class _NewAxis:
    """``sluice.newaxis`` (DALI's ``dali.newaxis``): in a DataNode subscript, a new dimension of
    extent 1; ``newaxis("F")`` names it in the layout."""

    def __init__(self, name=None):
        if name is not None and (not isinstance(name, str) or len(name) != 1):
            raise ValueError(f"newaxis: an axis name is one character, got {name!r}")
        self.name = name

    def __call__(self, name=None):
        return _NewAxis(name)

    def __repr__(self):
        return "newaxis" if self.name is None else f"newaxis({self.name!r})"


newaxis = _NewAxis()


def _subscript(node, index):
    """DataNode.__getitem__: tensor_subscript's arguments from a Python subscript."""
    items = index if isinstance(index, tuple) else (index,)
    if sum(1 for v in items if v is Ellipsis) > 1:
        raise IndexError(f"{node.name}[...]: an index can only have a single ellipsis ('...')")
    args, new_axes, names = {}, [], []
    k = 0          # the subscript (input dimension) the next item addresses
    out_dim = 0    # the output dimension the next new axis lands at
    ellipsis_at = -1
    for v in items:
        if isinstance(v, _NewAxis):
            if ellipsis_at >= 0:
                raise IndexError(f"{node.name}[...]: sluice.newaxis after '...' is not supported (the number of "
                                 "dimensions the ellipsis stands for is known only when the pipeline runs)")
            new_axes.append(out_dim)
            if v.name is not None:
                names.append(v.name)
            out_dim += 1
            continue
        if v is Ellipsis:
            ellipsis_at = k
            continue
        if v is None:
            raise IndexError(f"{node.name}[None]: use sluice.newaxis to add a dimension")
        if isinstance(v, slice):
            for part, key in ((v.start, "lo"), (v.stop, "hi"), (v.step, "step")):
                if part is not None:
                    args[f"{key}_{k}"] = _subscript_value(node, part, f"{key}_{k}")
            if v.step is not None and isinstance(v.step, numbers.Integral) and int(v.step) == 0:
                raise ValueError(f"{node.name}[...]: slice step cannot be zero")
            out_dim += 1
        else:
            args[f"at_{k}"] = _subscript_value(node, v, f"at_{k}")
        k += 1
    if names and len(names) != len(new_axes):
        raise ValueError(f"{node.name}[...]: name every new axis or none")
    if ellipsis_at >= 0:
        args["ellipsis_at"] = ellipsis_at
    if any(key.split("_")[0] in ("at", "lo", "hi", "step") for key in args):
        out = call_operator("tensor_subscript", [node], dict(args, num_subscripts=k))[0]
    elif new_axes and items and isinstance(items[-1], _NewAxis):
        out = node  # expand_dims checks the rank itself
    else:
        out = call_operator("subscript_dim_check", [node], {"num_subscripts": k})[0]
    if new_axes:
        kwargs = {"axes": new_axes}
        if names:
            kwargs["new_axis_names"] = "".join(names)
        out = call_operator("expand_dims", [out], kwargs)[0]
    return out


def _subscript_value(node, value, arg):
    if isinstance(value, DataNode):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{node.name}[...]: {arg}: an index is an integer or a DataNode of integers, got "
                        f"{type(value).__name__} {value!r}")
    return int(value)


_MAX_EXPR_INPUTS = 64


def _operand(value, op):
    """A Python value -> an expression tree: ("in", DataNode), ("c", text) or (op, *children)."""
    if isinstance(value, ExpressionNode) and "_call" not in value.__dict__:
        return value._tree
    if isinstance(value, DataNode):
        return ("in", value)
    scalar = _scalar_constant(value)
    if scalar is not None:  # types.Constant(15).uint8(): a typed constant
        v, name = scalar
        return ("c", f"${v!r}:{name}" if isinstance(v, float) else f"${int(v)}:{name}")
    if isinstance(value, bool):
        return ("c", f"${int(value)}:bool")
    if isinstance(value, numbers.Integral) and type(value).__module__ != "numpy":
        v = int(value)
        if not -2**63 <= v < 2**63:
            raise ValueError(f"arithmetic: the constant {v} does not fit in int64")
        # DALI types a Python int as INT32 (INT64 when it does not fit) and a float as FLOAT: the
        # literal takes part in the promotion (uint8_tensor + 1 is int32, as in DALI).
        return ("c", f"${v}:int32" if -2**31 <= v < 2**31 else f"${v}:int64")
    if isinstance(value, numbers.Real) and type(value).__module__ != "numpy":
        return ("c", f"${float(value)!r}:float32")
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        import numpy as np
        arr = np.asarray(value)
        # uint64 is computed in int64 by expressions, which refuse uint64 constants
        name = {"uint64": "int64", "float128": "float64"}.get(arr.dtype.name, arr.dtype.name)
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
    stack = _condition_stack()
    if stack is None:
        return ExpressionNode(tree)
    node = ExpressionNode(_map_leaves(tree, stack.preprocess))  # inputs split for the current `if` branch
    stack.register([node])
    return node


def _map_leaves(tree, fn):
    if tree[0] == "in":
        return ("in", fn(tree[1]))
    if tree[0] == "c":
        return tree
    return (tree[0], *(_map_leaves(t, fn) for t in tree[1:]))


def _scalar_constant(value):
    """(value, type name) of a types.ScalarConstant (recognised by its marker: sluice.types imports
    this module), else None."""
    if getattr(type(value), "_sluice_scalar_constant", False):
        return value.value, value.type_name
    return None


def _condition_stack():
    """The conditionals' scope stack of the pipeline being defined (sluice._conditionals), or None."""
    pipe = current.current()
    return getattr(pipe, "_condition_stack", None) if pipe is not None else None


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

    def get(self):
        """In debug mode (``pipeline_def(debug=True)``): the expression's value, a TensorListCPU."""
        pipe = current.current() if self._pipeline is None else self._pipeline
        evaluate = getattr(pipe, "_debug_evaluate", None)
        if evaluate is None:
            return DataNode.get(self)
        return evaluate(self).get()

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
            call = make_call("arithmetic.expression", leaves, {"expression": text}, device=device, scoped=False)
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
            scalar = _scalar_constant(value)
            args[arg] = to_schema_value(value) if scalar is None else scalar[0]  # DALI: a ScalarConstant's value
    return args, arg_inputs


def _validate(op_name, device, name, input_names, args, arg_inputs):
    return _sluice.validate_operator(op_name, name or "", device, list(input_names),
                                     {a: n.name for a, n in arg_inputs.items()}, args)


def _constant_input(op_name, index, value):
    """DALI's types.Constant for positional inputs: a number, a (nested) list or tuple of numbers or a
    NumPy array becomes a ``constant`` node (``fn.random.choice(5)``, ``fn.random.choice([1, 2, 3])``).
    Shape and type come from the value, as NumPy infers them, except that 64-bit types become 32-bit
    (DALI's rule: Python ints are int32, floats float32); a types.ScalarConstant keeps its type (a
    0-d constant). Anything else is returned unchanged."""
    scalar = _scalar_constant(value)
    if scalar is not None:
        v, dtype = scalar
        data = {"fdata": [float(v)]} if isinstance(v, float) else {"idata": [int(v)]}
        return call_operator("constant", [], dict(data, shape=[], dtype=dtype), device="cpu")[0]
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
    flat = arr.reshape(-1)
    data = {"fdata": [float(x) for x in flat]} if kind == "f" else {"idata": [int(x) for x in flat]}
    return call_operator("constant", [], dict(data, shape=list(arr.shape), dtype=dtype), device="cpu")[0]


def _warn_deprecated(schema, kwargs):
    """DALI's DeprecationWarning for a deprecated argument (the C++ core renames or drops it)."""
    for arg in kwargs.keys() & schema.deprecated_arguments.keys():
        new = schema.deprecated_arguments[arg]
        hint = f"use '{new}' instead" if new else "it has no effect and can be removed"
        warnings.warn(f"{schema.name}: the argument '{arg}' is deprecated in DALI; {hint}", DeprecationWarning,
                      stacklevel=4)


def make_call(op_name, inputs, kwargs, device="cpu", name=None, scoped=True):
    """Validates one operator call (raising ArgumentError) and returns its OpCall, not yet added to
    any C++ pipeline. While a pipeline with conditionals is defined (``scoped``), the inputs are
    split for the current ``if`` branch and the outputs registered there (sluice._conditionals)."""
    schema = get_schema(op_name)
    check_device(schema, device)
    inputs = [_constant_input(schema.name, i, node) for i, node in enumerate(inputs)]
    for i, node in enumerate(inputs):
        if not isinstance(node, DataNode):
            raise TypeError(f"{schema.name}: input {i} must be a DataNode (an operator's output), "
                            f"got {type(node).__name__}")
    stack = _condition_stack() if scoped else None
    if stack is not None:
        has_inputs = bool(inputs) or any(isinstance(v, DataNode) for v in kwargs.values())
        inputs, kwargs = stack.scope_inputs(schema.name, inputs, kwargs, has_inputs)
    args, arg_inputs = _split_arguments(kwargs)
    _warn_deprecated(schema, kwargs)
    op_def = _validate(op_name, device, name, [n.name for n in inputs], args, arg_inputs)
    call = OpCall(schema, op_def, name, inputs, arg_inputs, current.current())
    if stack is not None:  # an operator without inputs makes a whole batch: the outermost scope's
        stack.register(call.outputs, global_scope=not has_inputs)
    return call


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
    runs where its inputs are, as in DALI: on the GPU if any input is GPU data, else on the CPU.

    DALI's input sets: a positional input given as a list of DataNodes makes one call per element
    (the other inputs repeated; every list the same length) and returns DALI's shapes: one list of
    the calls' outputs for a one-output operator, else one list per output."""
    sets = _input_sets(op_name, inputs)
    if sets is not None:
        return _call_input_sets(op_name, sets, kwargs, device, name)
    debug = getattr(current.current(), "_debug_call", None)
    if debug is not None:  # pipeline_def(debug=True): run it now (sluice.experimental.debug_mode)
        return debug(op_name, list(inputs), kwargs, device, name)
    if device is None:
        device = "gpu" if any(isinstance(n, DataNode) and n.device == "gpu" for n in inputs) else "cpu"
    call = make_call(op_name, inputs, kwargs, device=device, name=name)
    if call.pipeline is not None:
        call.pipeline._record_call(call)
    return call.outputs


def _is_input_set(value):
    return isinstance(value, list) and any(isinstance(v, DataNode) for v in value) and \
        all(isinstance(v, DataNode) or _scalar_constant(v) is not None for v in value)


def _input_sets(op_name, inputs):
    """The inputs of each call when some input is a list of DataNodes (DALI's multiple input sets),
    else None."""
    if not any(_is_input_set(x) for x in inputs):
        for i, x in enumerate(inputs):
            if isinstance(x, (list, tuple)) and any(isinstance(v, DataNode) for v in x):
                raise TypeError(f"{op_name}: input {i} mixes DataNodes with other values; an input is a DataNode, "
                                "a constant (numbers, lists of numbers, arrays) or a list of DataNodes (input sets)")
        return None
    lengths = {len(x) for x in inputs if _is_input_set(x)}
    if len(lengths) > 1:
        raise ValueError(f"All argument lists for Multiple Input Sets used with operator {op_name} must have the same "
                         f"length, got lengths {sorted(lengths)}")
    n = lengths.pop()
    return [[x[k] if _is_input_set(x) else x for x in inputs] for k in range(n)]


def _call_input_sets(op_name, sets, kwargs, device, name):
    """One call per input set. A random operator's calls share one seed (DALI gives them one logical
    id, hence one seed): the same random choices for every set, e.g. one crop for an image and its mask."""
    if device is None:
        device = "gpu" if any(isinstance(n, DataNode) and n.device == "gpu" for s in sets for n in s) else "cpu"
    if get_schema(op_name).is_random and kwargs.get("seed") in (None, -1):
        kwargs = dict(kwargs, seed=_input_set_seed(op_name))
    results = [call_operator(op_name, inputs, kwargs, device=device, name=name if k == 0 else None)
               for k, inputs in enumerate(sets)]
    if len(results) == 1:
        return results[0]
    if len(results[0]) == 1:
        return [r[0] for r in results]
    return [list(outs) for outs in zip(*results)]


def _mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def _input_set_seed(op_name):
    """The seed shared by the calls of one random operator with input sets. Sluice's C++ pipeline
    derives each operator's seed from the pipeline seed and the operator's position and has no way to
    give several operators one derived seed (DALI's logical id), so it is derived here: from the seed
    the pipeline will run with (a restored checkpoint's, else the pipeline's) and the call's position
    among the pipeline's calls; with neither seed known, a random one."""
    pipe = current.current()
    options = getattr(pipe, "_options", None)
    base = None
    text = getattr(options, "checkpoint", None)
    if text:
        import re
        found = re.search(r"^seed=(\d+)$", text, re.M)  # Sluice's checkpoint text (src/pipeline/checkpoint.cc)
        base = int(found.group(1)) if found else None
    if base is None and options is not None and options.seed >= 0:
        base = int(options.seed)
    if base is None:
        if options is not None and options.enable_checkpointing:
            raise SluiceError(f"{op_name} is called with input sets in a pipeline with enable_checkpointing=True and "
                              "no seed: give the pipeline a seed (or the operator seed=...), so that its input sets' "
                              "shared seed is the same when the pipeline is restored")
        import random
        return random.SystemRandom().getrandbits(63)
    position = len(getattr(pipe, "_recorded", ()))
    return _mix64(_mix64(base) ^ _mix64(position + 0x632BE59BD9B4E019)) & 0x7FFFFFFFFFFFFFFF


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
