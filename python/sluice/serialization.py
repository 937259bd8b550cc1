"""Pipeline serialization: ``Pipeline.serialize()``, ``Pipeline.deserialize()``,
``deserialize_and_build()`` and the graph drawing of ``save_graph_to_dot_file()``.

Sluice's format is its own (DALI's is a Protobuf of its OpSpecs): UTF-8 JSON, versioned::

    {"format": "sluice.pipeline", "version": 1,
     "pipeline": {constructor options: batch_size, num_threads, device_id, seed, exec_*, prefetch_queue_depth,
                  output_dtype/ndim/layout, ...},
     "operators": [{"op": schema name, "device": "cpu" | "mixed" | "gpu", "name": instance name or null,
                    "args": {constant arguments as validated}, "inputs": [[operator, output], ...],
                    "arg_inputs": {argument: [operator, output]}, "num_outputs": n,
                    "external_source": null | {"group", "num_outputs", "batch", "batch_info", "layout",
                                               "repeat_last"}}, ...],
     "outputs": [[operator, output], ...]}

An edge is ``[index of the producing operator in "operators", its output index]``. Operators are
listed in the order the pipeline adds them to the C++ core, the order that numbers their unnamed
instances (``"cast#0"``) and from which each operator's random seed derives (the pipeline's seed and
the operator's position); ``"seed"`` is the seed the pipeline actually used (a random one is fixed
when serialized), so a deserialized pipeline gives the same outputs batch for batch. The
pipeline's state is not included (as in DALI): a checkpoint taken from the original pipeline
restores it, ``Pipeline.deserialize(data, checkpoint=...)``.

Python code cannot be serialized: ``python_function`` (and the function operators built on it) and
an ``external_source`` with a ``source`` are refused with an error naming the operator; an
``external_source`` fed by ``feed_input`` is kept (with its name, layout and ``repeat_last``).
"""
import json

from .errors import SluiceError

FORMAT = "sluice.pipeline"
VERSION = 1

# What an OpCall carries besides its validated definition. Anything else is Python-side state that
# the format does not hold: such a call is refused rather than silently serialized without it.
_PLAIN_CALL_ATTRS = {"id", "schema", "op_def", "device", "name", "inputs", "arg_inputs", "pipeline",
                     "external_source", "outputs"}


def _refuse_python(call):
    what = f"operator '{call.display_name}' ({call.schema.name})"
    if call.schema.name == "python_function" or hasattr(call, "python_function_key"):
        raise SluiceError(f"serialize(): {what} runs a Python function, which Sluice cannot serialize; a "
                          f"serialized pipeline holds only operators of the C++ core", op=call.display_name)
    group = call.external_source
    if group is not None and group.source is not None:
        raise SluiceError(f"serialize(): external_source '{call.name}' has a `source` (Python code), which "
                          f"Sluice cannot serialize; define it without `source` and feed it with "
                          f"Pipeline.feed_input() to serialize the pipeline", op=call.name or "")
    extra = sorted(set(vars(call)) - _PLAIN_CALL_ATTRS)
    if extra:
        raise SluiceError(f"serialize(): {what} carries Python-side state ({', '.join(extra)}) that Sluice's "
                          f"serialization does not hold", op=call.display_name)


def _pipeline_options(pipe):
    o = pipe._options
    depth = pipe._prefetch_queue_depth
    return {
        "batch_size": o.batch_size,
        "num_threads": "auto" if o.auto_threads else o.num_threads,
        "device_id": None if o.device_id < 0 else o.device_id,
        "seed": int(pipe.seed),
        "exec_pipelined": o.exec_pipelined,
        "exec_async": o.exec_async,
        "exec_dynamic": pipe._exec_dynamic,
        "prefetch_queue_depth": dict(depth) if isinstance(depth, dict) else depth,
        "bytes_per_sample": o.bytes_per_sample,
        "set_affinity": o.set_affinity,
        "enable_memory_stats": o.enable_memory_stats,
        "enable_checkpointing": o.enable_checkpointing,
        "fuse_operators": o.fuse_operators,
        "memory_budget": o.memory_budget or None,
        "stream_policy": None if pipe._stream_policy is None else pipe._stream_policy.name,
        "concurrency": None if pipe._concurrency is None else pipe._concurrency.name,
        "py_num_workers": pipe._py_num_workers,
        "py_start_method": pipe._py_start_method,
        "output_dtype": _map(pipe._output_dtype, lambda d: d.name),
        "output_ndim": pipe._output_ndim,
        "output_layout": pipe._output_layout,
    }


def _map(value, fn):
    if isinstance(value, list):
        return [None if v is None else fn(v) for v in value]
    return None if value is None else fn(value)


def dumps(pipe):
    """The pipeline (its graph built on the Python side: ``_build_graph()``) as bytes."""
    calls = pipe._calls
    index = {call.id: k for k, call in enumerate(calls)}

    def ref(node):
        return [index[node.source_call.id], node.index]

    groups = []
    operators = []
    for call in calls:
        _refuse_python(call)
        entry = {"op": call.schema.name, "device": call.device, "name": call.name, "args": dict(call.args),
                 "inputs": [ref(n) for n in call.inputs],
                 "arg_inputs": {a: ref(n) for a, n in call.arg_inputs.items()},
                 "num_outputs": len(call.outputs), "external_source": None}
        group = call.external_source
        if group is not None:
            if group not in groups:
                groups.append(group)
            entry["external_source"] = {"group": groups.index(group), "num_outputs": group.num_outputs,
                                        "batch": bool(group.batch), "batch_info": bool(group.batch_info),
                                        "layout": list(group.layout), "repeat_last": group.repeat_last}
        operators.append(entry)
    doc = {"format": FORMAT, "version": VERSION, "pipeline": _pipeline_options(pipe), "operators": operators,
           "outputs": [ref(n) for n in pipe._outputs]}
    return json.dumps(doc, indent=1).encode("utf-8")


def loads(data):
    """The document of serialized data (bytes or str), checked."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise SluiceError("deserialize: not a serialized Sluice pipeline (binary data: Sluice cannot read "
                              "DALI's Protobuf serialization)") from None
    if not isinstance(data, str):
        raise TypeError(f"deserialize: the serialized pipeline must be bytes or str, got {type(data).__name__}")
    try:
        doc = json.loads(data)
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SluiceError("deserialize: not a serialized Sluice pipeline (Pipeline.serialize() output); Sluice "
                          "cannot read DALI's Protobuf serialization")
    version = doc.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise SluiceError(f"deserialize: the pipeline was serialized in format version {version!r}; this Sluice "
                          f"reads versions up to {VERSION}")
    for key in ("pipeline", "operators", "outputs"):
        if key not in doc:
            raise SluiceError(f"deserialize: the serialized pipeline has no {key!r}")
    return doc


def constructor_args(doc, enums):
    """The Pipeline constructor arguments of a serialized pipeline. `enums` maps the arguments whose
    values are enumerations (stream_policy, concurrency) to their classes."""
    from . import types
    args = dict(doc["pipeline"])
    args["output_dtype"] = _map(args.get("output_dtype"), lambda name: types.DALIDataType[name])
    for arg, cls in enums.items():
        if args.get(arg) is not None:
            args[arg] = cls[args[arg]]
    return args


def restore_graph(pipe, doc):
    """Makes the serialized operator calls in `pipe` (current while they are made) and sets its outputs."""
    from .external_source import ExternalSourceGroup
    from .graph import make_call
    nodes, groups = [], {}

    def node(edge, where):
        k, i = edge
        if not 0 <= k < len(nodes) or not 0 <= i < len(nodes[k]):
            raise SluiceError(f"deserialize: {where} refers to output {i} of operator {k}, which does not exist "
                              f"before it")
        return nodes[k][i]

    with pipe:
        for k, op in enumerate(doc["operators"]):
            where = f"operator {k} ({op.get('op')})"
            inputs = [node(e, where) for e in op["inputs"]]
            kwargs = dict(op["args"])
            kwargs.update({a: node(e, where) for a, e in op["arg_inputs"].items()})
            call = make_call(op["op"], inputs, kwargs, device=op["device"], name=op["name"])
            if len(call.outputs) != op["num_outputs"]:
                raise SluiceError(f"deserialize: {where} has {len(call.outputs)} outputs in this Sluice, the "
                                  f"serialized pipeline had {op['num_outputs']}")
            es = op.get("external_source")
            if es is not None:
                group = groups.get(es["group"])
                if group is None:
                    group = groups[es["group"]] = ExternalSourceGroup(
                        None, es["num_outputs"], None, es["batch"], es["batch_info"], list(es["layout"]),
                        repeat_last=es["repeat_last"])
                call.external_source = group
                group.op_names.append(call.name)
            pipe._record_call(call)
            nodes.append(call.outputs)
        pipe.set_outputs(*[node(e, "the pipeline's outputs") for e in doc["outputs"]])


# --- save_graph_to_dot_file ------------------------------------------------------------------------
_COLORS = {"cpu": "#5b9bd5", "mixed": "#b07cc6", "gpu": "#76b900"}


def _quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _op_name(call, edges):
    if call.outputs and call.outputs[0] in edges:
        return edges[call.outputs[0]].rsplit("[", 1)[0]
    return call.display_name


def to_dot(calls, outputs, edges, *, show_tensors=False, use_colors=False):
    """The graph in Graphviz's dot language: operators (instance name and schema), the data edges
    between them (as nodes of their own with `show_tensors`), and the pipeline's outputs."""
    lines = ["digraph pipeline {", "  rankdir=TB;"]
    names = {call.id: _op_name(call, edges) for call in calls}
    for call in calls:
        # two lines, joined by dot's \n escape
        label = _quote(names[call.id])[:-1] + "\\n" + _quote(f"{call.schema.name} ({call.device})")[1:]
        attrs = [f"label={label}"]
        if use_colors:
            attrs += ["style=filled", f"fillcolor={_quote(_COLORS.get(call.device, 'white'))}"]
        lines.append(f"  {_quote(names[call.id])} [{', '.join(attrs)}];")
    tensors = set()

    def link(node, target, arg=None):
        producer = names[node.source_call.id]
        tensor = edges.get(node, f"{producer}[{node.index}]")
        if not show_tensors:
            label = tensor if arg is None else f"{tensor} -> {arg}"
            lines.append(f"  {_quote(producer)} -> {_quote(target)} [label={_quote(label)}];")
            return
        if tensor not in tensors:
            tensors.add(tensor)
            lines.append(f"  {_quote(tensor)} [shape=box];")
            lines.append(f"  {_quote(producer)} -> {_quote(tensor)};")
        label = f" [label={_quote(arg)}]" if arg else ""
        lines.append(f"  {_quote(tensor)} -> {_quote(target)}{label};")

    for call in calls:
        for n in call.inputs:
            link(n, names[call.id])
        for arg, n in call.arg_inputs.items():
            link(n, names[call.id], arg)
    for k, n in enumerate(outputs):
        lines.append(f"  {_quote(f'output {k}')} [shape=doubleoctagon];")
        link(n, f"output {k}")
    lines.append("}")
    return "\n".join(lines) + "\n"
