"""Debug mode (DALI's ``pipeline_def(debug=True)``): the pipeline function runs again at every
``run()``, each operator call executing at once on real data, so that the function can look at
what it made: ``node.get()`` (a TensorListCPU), ``print(node)``, a debugger's breakpoints.

How it runs: every operator call of an iteration is a *call site*, numbered in the order the
function makes them (the k-th call of every iteration is the same site: the function must make the
same calls each time). A site is a dynamic-mode graph (``experimental.dynamic._engine.OpGraph``)
made at the first iteration and kept, so readers keep their position and random operators their
stream. Arithmetic stays lazy as in a pipeline (a chain is one ``arithmetic.expression`` call,
run when it is used, or by ``get()``).

The same outputs as the graph: the k-th call site is placed as the k-th operator of a pipeline
with the pipeline's seed, so it gets the seed the graph gives that operator (Sluice derives an
operator's seed from the pipeline seed and its position), and runs its n-th iteration as the graph
runs its n-th batch. Random operators and shuffling readers therefore give the graph's values,
provided every call the function makes is used by an output (the graph drops unused calls, which
shifts the positions after them). Graph passes that look at two operators together are not made
here: a decoder followed by a resize to a constant size decodes at full scale (the graph may decode
JPEGs at a reduced DCT scale: ``scaled_decode``), so such pixels differ unless the decoder gets
``scaled_decode=False``. External sources, conditionals and the scheduled and iterator APIs are
not available in debug mode.
"""
import random as _random

from .. import current
from ..errors import SluiceError
from ..graph import DataNode, ExpressionNode, _leaves, _serialise
from ..pipeline import Pipeline
from ..tensors import wrap_batch


class DebugNode(DataNode):
    """An operator's output in debug mode: a DataNode holding its batch (DALI's DataNodeDebug)."""

    def __init__(self, batch, name):  # noqa: DataNode.__init__ is not called: there is no OpCall
        self._batch = batch  # the C++ output batch
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def device(self):
        return "cpu"

    @property
    def source_call(self):
        raise SluiceError(f"{self._name}: a debug-mode node has no operator call (it holds data)")

    def get(self):
        """The batch, as a TensorListCPU."""
        return wrap_batch(self._batch, -1)

    def shape(self, dtype=None, device="cpu"):
        """The samples' shapes (a list of tuples), as DALI's debug mode gives them."""
        return [tuple(s) for s in self._batch.shapes()]

    def __str__(self):
        return f"DataNodeDebug(\n    name=\"{self._name}\",\n    data={self.get()})"

    __repr__ = __str__


class DebugPipeline(Pipeline):
    """A pipeline whose `func` runs eagerly at each ``run()`` (see the module's doc). Built by
    ``pipeline_def(debug=True)``; the constructor takes Pipeline's arguments."""

    def __init__(self, func, **pipeline_kwargs):
        super().__init__(**pipeline_kwargs)
        if self._options.seed < 0:  # fixed now: every site's seed derives from it
            self._options.seed = _random.SystemRandom().getrandbits(32)
        self._func = func
        self._sites = []          # OpGraph per call site, in call order
        self._site_ops = []       # the operator of each site (checked at later iterations)
        self._position = None     # the next site's number during a run(), else None
        self._debug_built = False

    @property
    def seed(self):
        return self._options.seed

    def build(self):
        """Checks the options (as a pipeline's build does); the operators are made by the first run()."""
        if self._options.batch_size < 1:
            raise SluiceError("batch_size must be given to a debug-mode pipeline (at least 1)")
        self._debug_built = True

    def run(self, *args, **kwargs):
        """Runs the function once on the next batch; returns its outputs as TensorListCPUs."""
        if args or kwargs:
            raise SluiceError("debug mode: run() takes no pipeline inputs (external sources are not available)")
        self.build()
        self._position = 0
        current.push(self)
        try:
            outputs = self._func()
            outputs = outputs if isinstance(outputs, (list, tuple)) else (outputs,)
            nodes = [self._value(o, f"output {i}") for i, o in enumerate(outputs)]
        finally:
            current.pop()
            self._position = None
        return tuple(n.get() for n in nodes)

    def _not_in_debug(self, what):
        raise SluiceError(f"{what} is not available in debug mode (pipeline_def(debug=True)); use run()")

    def schedule_run(self):
        self._not_in_debug("schedule_run()")

    def share_outputs(self, *a, **k):
        self._not_in_debug("share_outputs()")

    def outputs(self, *a, **k):
        self._not_in_debug("outputs()")

    def _schedule_run(self, *a, **k):
        self._not_in_debug("a framework iterator")

    def serialize(self, *a, **k):
        self._not_in_debug("serialize()")

    def feed_input(self, *a, **k):
        self._not_in_debug("feed_input()")

    # --- the hooks sluice.graph calls in debug mode -------------------------------------------------
    def _value(self, node, what):
        """A DebugNode for an output or input: DebugNodes as they are, expressions evaluated."""
        if isinstance(node, DebugNode):
            return node
        if isinstance(node, ExpressionNode) and "_call" not in node.__dict__:
            return self._debug_evaluate(node)
        raise TypeError(f"debug mode: {what} must be an operator's output, got {type(node).__name__}")

    def _debug_evaluate(self, expr):
        """The value of a lazy arithmetic expression over DebugNodes: one arithmetic.expression call
        (made once per expression object, as the graph makes it once)."""
        done = expr.__dict__.get("_debug_node")
        if done is None:
            leaves = _leaves(expr._tree, [])
            done = self._debug_call("arithmetic.expression", leaves, {"expression": _serialise(expr._tree, leaves)},
                                    None, None)[0]
            expr.__dict__["_debug_node"] = done
        return done

    def _debug_call(self, op_name, inputs, kwargs, device, name):
        """One operator call of the function: runs its site's graph on the inputs' batches and returns
        DebugNodes (graph.call_operator's result in debug mode)."""
        if self._position is None:
            raise SluiceError(f"{op_name}: in debug mode, operators run inside the pipeline function during run()")
        from ..graph import _constant_input
        from .dynamic import _engine
        if device not in (None, "cpu"):
            raise SluiceError(f"{op_name}: debug mode runs CPU operators only (device={device!r})")
        if op_name in ("external_source", "python_function"):
            raise SluiceError(f"{op_name} is not available in debug mode in this version of Sluice")
        inputs = [_constant_input(op_name, i, x) for i, x in enumerate(inputs)]  # constants are calls, as in the graph
        inputs = [self._value(x, f"{op_name} input {i}") if isinstance(x, DataNode) else x
                  for i, x in enumerate(inputs)]
        fed_args = {k: self._value(v, f"{op_name} argument {k}") for k, v in kwargs.items() if isinstance(v, DataNode)}
        consts = {k: v for k, v in kwargs.items() if not isinstance(v, DataNode) and v is not None}
        site = self._position
        self._position += 1
        if site < len(self._sites):
            if self._site_ops[site] != op_name:
                raise SluiceError(f"debug mode: call {site} of the pipeline function is {op_name}, but it was "
                                  f"{self._site_ops[site]} in the first iteration; the function must make the same "
                                  "operator calls at every iteration")
            graph = self._sites[site]
        else:
            fed = [x for x in inputs if isinstance(x, DebugNode)]

            def define(ins, args):
                it = iter(ins)
                call_inputs = [next(it) if isinstance(x, DebugNode) else x for x in inputs]
                from ..graph import call_operator
                return call_operator(op_name, call_inputs, {**consts, **args}, name=name)

            graph = _engine.OpGraph(define, self._options.batch_size, len(fed), list(fed_args),
                                    self._options.num_threads, seed=self._options.seed, position=site)
            self._sites.append(graph)
            self._site_ops.append(op_name)
        out = graph.run([(_arrays(x._batch), x._batch.layout) for x in inputs if isinstance(x, DebugNode)],
                        {k: (_arrays(v._batch), v._batch.layout) for k, v in fed_args.items()})
        label = name or f"{op_name}#{site}"
        return [DebugNode(b, f"{label}[{i}]") for i, b in enumerate(out)]


def _arrays(cpp_batch):
    import numpy as np
    return [np.asarray(cpp_batch.sample(i)) for i in range(cpp_batch.num_samples)]
