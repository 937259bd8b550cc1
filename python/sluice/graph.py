"""Operator calls: the nodes of a pipeline graph, validated when made, added to C++ at build().

``call_operator`` is what every ``fn.*`` function and ``ops.*`` instance ends in. It checks the
device and argument names in Python (for errors with suggestions), then lets the C++ core validate
the whole call against the schema on a scratch pipeline, so argument type and count errors appear
at the call site rather than at build().
"""
import itertools

from . import _sluice
from .data_node import DataNode
from .device import check_cuda
from .errors import ArgumentError
from .schema import get_schema

_ids = itertools.count()
_DEVICES = ("cpu", "mixed", "gpu")


class OpCall:
    """One operator call. ``args``: name -> (kind, value); ``arg_inputs``: name -> DataNode."""

    def __init__(self, schema, device, name, inputs, args, arg_inputs, num_outputs, pipeline):
        self.id = next(_ids)
        self.schema = schema
        self.device = device
        self.name = name  # user-given instance name, or None
        self.inputs = list(inputs)
        self.args = args
        self.arg_inputs = arg_inputs
        self.pipeline = pipeline
        self.external_source = None  # ExternalSourceGroup for external_source calls
        self.outputs = [DataNode(self, i) for i in range(num_outputs)]

    @property
    def display_name(self):
        return self.name or f"{self.schema.name}#{self.id}"

    def preserve(self):
        kind_value = self.args.get("preserve")
        return bool(kind_value and kind_value[1])

    def add_to(self, cpp_pipeline, edges):
        """Adds this call to a C++ pipeline; `edges` maps DataNode -> edge name and is updated."""
        out = cpp_pipeline.add_operator(
            self.schema.name, self.name or "", self.device,
            [edges[n] for n in self.inputs],
            {a: edges[n] for a, n in self.arg_inputs.items()},
            [(a, k, v) for a, (k, v) in self.args.items()], [])
        for node, edge in zip(self.outputs, out):
            edges[node] = edge


def check_device(schema, device):
    if device not in _DEVICES:
        raise ArgumentError(f"{schema.name}: device must be one of 'cpu', 'mixed', 'gpu', got {device!r}",
                            op=schema.name, argument="device")
    if device != "cpu":
        check_cuda(schema.name, device)
    if device not in schema.backends:
        raise ArgumentError(f"{schema.name}: no '{device}' backend (supported: {', '.join(schema.backends)})",
                            op=schema.name, argument="device")


class _Probe:
    """A scratch C++ pipeline on which calls are validated (and multi-output counts learned)."""

    _pipe = None
    _count = 0

    @classmethod
    def outputs(cls, schema, device, name, n_inputs, args, arg_inputs):
        if cls._pipe is None or cls._count > 1000:
            cls._pipe = _sluice.Pipeline(1, 1, -1, 0, False, False, 1, 1, 0, False, False)
            cls._count = 0
        cls._count += 1
        return cls._pipe.add_operator(
            schema.name, name or "", device, [f"__probe_input{i}" for i in range(n_inputs)],
            {a: f"__probe_arg_{a}" for a in arg_inputs}, [(a, k, v) for a, (k, v) in args.items()], [])


def make_call(op_name, inputs, kwargs, device="cpu", name=None):
    """Validates one operator call and returns its OpCall (not yet added to any C++ pipeline)."""
    from .pipeline import Pipeline  # pipeline imports graph

    schema = get_schema(op_name)
    check_device(schema, device)
    args, arg_inputs = {}, {}
    for arg, value in kwargs.items():
        schema.check_argument_name(arg)
        if isinstance(value, DataNode):
            if not schema.is_per_sample(arg):
                raise ArgumentError(f"{schema.name}: argument '{arg}' takes a constant, not a per-sample DataNode",
                                    op=schema.name, argument=arg)
            arg_inputs[arg] = value
        elif value is not None:
            args[arg] = schema.normalize(arg, value)
    for i, node in enumerate(inputs):
        if not isinstance(node, DataNode):
            raise TypeError(f"{schema.name}: input {i} must be a DataNode (an operator's output), "
                            f"got {type(node).__name__}")
    n_out = len(_Probe.outputs(schema, device, name, len(inputs), args, arg_inputs))
    return OpCall(schema, device, name, inputs, args, arg_inputs, n_out, Pipeline.current())


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
