"""DALI 2.4's Pipeline API corners: the run methods' API types (schedule_run() + outputs()), the whole
constructor signature, output_dtype/output_ndim/output_layout checks, num_outputs, iter_setup(),
start_py_workers(), external_source_shm_statistics(), is_restored_from_checkpoint,
Pipeline(checkpoint=<bytes>), run(**pipeline_inputs), external_source(repeat_last=True)."""
import inspect
import pickle
import warnings

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types
from sluice.pipeline import OperatorConcurrency, StreamPolicy
from sluice.types import PipelineAPIType


def counter(**kw):
    pipe = sluice.Pipeline(**{"batch_size": 3, "num_threads": 1, "seed": 0, **kw})
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    return pipe


def values(outputs):
    return np.array(outputs[0].as_tensor()).ravel().tolist()


# --- run methods ----------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_schedule_run_then_outputs_is_the_scheduled_api(depth):
    expected = [values(counter(prefetch_queue_depth=depth).run())]
    pipe = counter(prefetch_queue_depth=depth)
    got = []
    for _ in range(4):
        pipe.schedule_run()
        got.append(values(pipe.outputs()))
    assert got[0] == expected[0] == [0, 1, 2]
    assert got == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
    # outputs() and share_outputs()/release_outputs() are one (SCHEDULED) API: outputs() is
    # release_outputs() + share_outputs()
    pipe.release_outputs()
    pipe.schedule_run()
    assert values(pipe.share_outputs()) == [12, 13, 14]
    pipe.release_outputs()
    pipe.schedule_run()
    assert values(pipe.outputs()) == [15, 16, 17]


def test_mixing_api_types_is_an_error_and_the_check_can_be_disabled():
    pipe = counter()
    pipe.run()
    with pytest.raises(sluice.SluiceError, match="Mixing pipeline API type") as e:
        pipe.outputs()
    assert isinstance(e.value, RuntimeError) and "BASIC" in str(e.value) and "SCHEDULED" in str(e.value)
    pipe = counter()
    pipe.schedule_run()
    pipe.outputs()
    with pytest.raises(sluice.SluiceError, match="Mixing pipeline API type"):
        pipe.run()
    pipe.enable_api_check(False)
    assert values(pipe.run()) == [3, 4, 5]


def test_run_with_pipeline_inputs():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1)
    with pipe:
        pipe.set_outputs(fn.external_source(name="inp") * 2)
    for k in range(3):
        assert values(pipe.run(inp=[np.array([k]), np.array([k + 1])])) == [2 * k, 2 * k + 2]
    deep = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=2)
    with deep:
        deep.set_outputs(fn.external_source(name="inp"))
    with pytest.raises(sluice.SluiceError, match="prefetch_queue_depth"):
        deep.run(inp=[np.zeros(1)] * 2)


# --- the constructor ------------------------------------------------------------------------------
DALI_2_4_PARAMETERS = [
    "batch_size", "num_threads", "device_id", "seed", "exec_pipelined", "prefetch_queue_depth", "exec_async",
    "bytes_per_sample", "set_affinity", "max_streams", "default_cuda_stream_priority", "enable_memory_stats",
    "enable_checkpointing", "checkpoint", "py_num_workers", "py_start_method", "py_callback_pickler",
    "output_dtype", "output_ndim", "output_layout", "exec_dynamic", "experimental_exec_dynamic",
    "stream_policy", "concurrency"]


def test_the_constructor_takes_dali_2_4s_signature():
    params = inspect.signature(sluice.Pipeline.__init__).parameters
    assert list(params)[1:len(DALI_2_4_PARAMETERS) + 1] == DALI_2_4_PARAMETERS
    assert all(params[p].kind == p_kind for p, p_kind in
               (("default_cuda_stream_priority", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                ("enable_memory_stats", inspect.Parameter.KEYWORD_ONLY)))
    pipe = counter(exec_dynamic=True, stream_policy=StreamPolicy.PER_BACKEND,
                   concurrency=OperatorConcurrency.FULL, py_num_workers=2, py_start_method="spawn",
                   py_callback_pickler=pickle)
    assert (pipe.exec_dynamic, pipe.stream_policy, pipe.concurrency) == (True, StreamPolicy.PER_BACKEND,
                                                                        OperatorConcurrency.FULL)
    assert (pipe.py_num_workers, pipe.py_start_method) == (2, "spawn")
    assert values(pipe.run()) == [0, 1, 2]


def test_exec_dynamic_resolves_as_in_dali():
    assert counter().exec_dynamic is True
    assert counter(exec_async=False).exec_dynamic is None
    assert counter(exec_dynamic=False).exec_dynamic is False
    separated = counter(prefetch_queue_depth={"cpu_size": 2, "gpu_size": 1})
    assert separated.exec_dynamic is None and separated.exec_separated
    assert (separated.cpu_queue_size, separated.gpu_queue_size) == (2, 1)
    with pytest.raises(ValueError, match="exec_dynamic=True is not compatible with separated"):
        counter(prefetch_queue_depth={"cpu_size": 2, "gpu_size": 1}, exec_dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert counter(exec_async=False, experimental_exec_dynamic=True).exec_dynamic is True
    assert any("experimental_exec_dynamic is deprecated" in str(w.message) for w in caught)


def test_deprecated_and_invalid_constructor_arguments():
    for kw, text in (({"max_streams": -1}, "max_streams"), ({"default_cuda_stream_priority": 0}, "stream_priority"),
                     ({"seed": -1}, "negative seed")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pipe = counter(**kw)
        assert any(text in str(w.message) for w in caught), kw
        assert values(pipe.run()) == [0, 1, 2]
    with pytest.raises(TypeError, match="stream_policy"):
        counter(stream_policy="single")
    with pytest.raises(TypeError, match="concurrency"):
        counter(concurrency=1)
    with pytest.raises(ValueError, match="py_callback_pickler"):
        counter(py_callback_pickler=pickle)  # with the default "fork" start method, as DALI
    with pytest.raises(TypeError, match="output_dtype"):
        counter(output_dtype="float")
    with pytest.raises(ValueError, match="NO_TYPE"):
        counter(output_dtype=[types.NO_TYPE])
    with pytest.raises(TypeError, match="output_ndim"):
        counter(output_ndim=[1.5])
    with pytest.raises(ValueError, match="non-negative"):
        counter(output_ndim=-1)
    with pytest.raises(TypeError, match="output_layout"):
        counter(output_layout=3)


# --- output descriptions --------------------------------------------------------------------------
def fed_pipe(**kw):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1, **kw)
    with pipe:
        pipe.set_outputs(fn.external_source(name="x"), fn.testing.counter())
    return pipe


def test_outputs_are_checked_against_output_dtype_ndim_and_layout_every_iteration():
    pipe = fed_pipe(output_dtype=[types.FLOAT, types.INT64], output_ndim=[2, None], output_layout=["HW", None])
    assert pipe.num_outputs == 2
    assert pipe.output_dtype() == [types.FLOAT, types.INT64] and pipe.output_ndim() == [2, None]
    good = [np.zeros((2, 3), np.float32)] * 2
    for _ in range(2):
        pipe.feed_input("x", good, layout="HW")
        pipe.run()
    for bad, layout, message in (([np.zeros((2, 3), np.float64)] * 2, "HW", "data type FLOAT64 does not match "
                                  "the declared output_dtype FLOAT"),
                                 ([np.zeros((6,), np.float32)] * 2, "W", "number of dimensions 1 does not match"),
                                 (good, "WH", "layout 'WH' does not match the declared output_layout 'HW'")):
        pipe.feed_input("x", bad, layout=layout)
        with pytest.raises(sluice.SluiceError, match=message) as e:
            pipe.run()
        assert isinstance(e.value, RuntimeError) and "pipeline output 0 (x[0])" in str(e.value)
    pipe.feed_input("x", good, layout="HW")
    pipe.run()  # a good iteration after bad ones


def test_single_output_descriptions_are_broadcast_and_lengths_must_match():
    pipe = fed_pipe(output_ndim=1)
    assert pipe.output_ndim() == [1, 1] and pipe.output_dtype() == [None, None]
    pipe.feed_input("x", [np.zeros(3, np.uint8)] * 2)
    pipe.run()
    pipe.feed_input("x", [np.zeros((1, 3), np.uint8)] * 2)
    with pytest.raises(sluice.SluiceError, match="number of dimensions 2 does not match the declared output_ndim 1"):
        pipe.run()
    with pytest.raises(sluice.SluiceError, match="output descriptions do not match"):
        fed_pipe(output_dtype=[types.FLOAT]).build()
    with pytest.raises(sluice.SluiceError, match="output descriptions do not match"):
        fed_pipe(output_layout=["a", "b", "c"]).num_outputs


def test_iterators_check_the_outputs_too():
    from sluice.plugin.pytorch import DALIGenericIterator
    pipe = counter(output_dtype=types.INT32)  # testing.counter gives int64
    with pytest.raises(sluice.SluiceError, match="output_dtype INT32"):
        DALIGenericIterator(pipe, ["c"], size=6)


# --- iter_setup and the legacy ops API ------------------------------------------------------------
class LegacyPipe(sluice.Pipeline):
    """DALI's legacy style: ops.ExternalSource fed in iter_setup()."""

    def __init__(self, batches, **kw):
        super().__init__(batch_size=2, num_threads=1, seed=0, **kw)
        self.input = ops.ExternalSource()
        self.add = ops.testing.AddConstant(value=100)
        self.batches = iter(batches)
        self.calls = 0

    def define_graph(self):
        self.data = self.input()
        return self.add(self.data)

    def iter_setup(self):
        self.calls += 1
        self.feed_input(self.data, next(self.batches))


@pytest.mark.parametrize("depth", [1, 2])
def test_iter_setup_feeds_each_iteration_and_its_stop_iteration_ends_the_epoch(depth):
    batches = [[np.array([k], np.int64), np.array([-k], np.int64)] for k in range(4)]
    pipe = LegacyPipe(batches, prefetch_queue_depth=depth)
    got = []
    while True:
        try:
            got.append(values(pipe.run()))
        except StopIteration:
            break
    assert got == [[100 + k, 100 - k] for k in range(4)]
    assert pipe.calls == 5  # four iterations and the one that ended the epoch


def test_iter_setup_runs_after_the_sources_and_before_their_feed():
    order = []

    class P(sluice.Pipeline):
        def define_graph(self):
            return fn.external_source(source=lambda i: order.append(("source", i)) or [np.array([i])] * 2)

        def iter_setup(self):
            order.append(("iter_setup",))

    pipe = P(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=2)
    assert values(pipe.run()) == [0, 0]
    assert order == [("source", 0), ("iter_setup",), ("source", 1), ("iter_setup",)]


def test_feed_input_on_an_external_source_with_a_source_is_an_error():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.external_source(source=lambda: [np.zeros(1)] * 2, name="src"))
    with pytest.raises(sluice.SluiceError, match="Cannot use `feed_input` on the external source 'src'"):
        pipe.feed_input("src", [np.zeros(1)] * 2)


# --- external_source(repeat_last=True) ------------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2])
def test_repeat_last_repeats_the_most_recent_batch_until_new_data_is_fed(depth):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=depth)
    with pipe:
        pipe.set_outputs(fn.external_source(name="x", repeat_last=True), fn.testing.counter())
    data = [np.array([1, 2]), np.array([3, 4])]
    pipe.feed_input("x", data)
    data[0][0] = 99  # the pipeline kept its own copy
    outs = [pipe.run() for _ in range(3)]
    assert all(np.array(o[0].as_tensor()).tolist() == [[1, 2], [3, 4]] for o in outs)
    assert [values(o[1:]) for o in outs] == [[0, 1], [2, 3], [4, 5]]  # the pipeline does run on
    pipe.feed_input("x", [np.array([5, 6]), np.array([7, 8])])
    got = [np.array(pipe.run()[0].as_tensor()).tolist() for _ in range(depth + 2)]
    # batches scheduled before the new feed (depth - 1 of them) still repeat the old data
    assert got[:depth - 1] == [[[1, 2], [3, 4]]] * (depth - 1)
    assert got[depth - 1:] == [[[5, 6], [7, 8]]] * 3


def test_repeat_last_needs_a_first_batch_and_no_source():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.external_source(name="x", repeat_last=True))
    with pytest.raises(sluice.SluiceError, match="no data was fed"):
        pipe.run()
    with pytest.raises(ValueError, match="repeat_last"):
        fn.external_source(source=lambda: [np.zeros(1)] * 2, repeat_last=True)
    with pytest.raises(ValueError, match="repeat_last"):
        ops.ExternalSource(source=lambda: [np.zeros(1)] * 2, repeat_last=True)()
    plain = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1)
    with plain:
        plain.set_outputs(fn.external_source(name="x"))
    plain.feed_input("x", [np.zeros(1)] * 2)
    plain.run()
    with pytest.raises(sluice.SluiceError, match="no data was fed"):
        plain.run()  # without repeat_last each iteration needs its own batch


# --- checkpoints ----------------------------------------------------------------------------------
def test_checkpoint_as_bytes_and_is_restored_from_checkpoint():
    def make(**kw):
        pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=4, enable_checkpointing=True, **kw)
        with pipe:
            pipe.set_outputs(fn.random.uniform(range=[0.0, 1.0]), fn.testing.counter())
        return pipe
    pipe = make()
    assert not pipe.is_restored_from_checkpoint
    pipe.run()
    text = pipe.checkpoint()
    expected = [np.array(o.as_tensor()).tolist() for o in pipe.run()]
    for ckpt in (text, text.encode(), bytearray(text.encode())):
        restored = make(checkpoint=ckpt)
        assert not restored.is_restored_from_checkpoint  # not before it is built
        assert [np.array(o.as_tensor()).tolist() for o in restored.run()] == expected
        assert restored.is_restored_from_checkpoint


# --- parallel external sources: start_py_workers, shm statistics, py_callback_pickler -----------
def sample_cb(info):
    return np.full((info.idx_in_epoch % 3 + 1, 100), info.idx_in_epoch, np.int32)


class MarkedPickler:
    """A py_callback_pickler: pickle with a marker that only its own loads() accepts."""
    MARK = b"sluice-test-pickler:"
    dumped = 0

    @classmethod
    def dumps(cls, obj, **kw):
        cls.dumped += 1
        return cls.MARK + pickle.dumps(obj, **kw)

    @classmethod
    def loads(cls, data, **kw):
        assert data.startswith(cls.MARK)
        return pickle.loads(data[len(cls.MARK):], **kw)


def parallel_pipe(**kw):
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0, py_num_workers=2, **kw)
    with pipe:
        pipe.set_outputs(fn.external_source(source=sample_cb, batch=False, parallel=True))
    return pipe


def test_start_py_workers_before_build_and_shm_statistics():
    assert counter().external_source_shm_statistics() == {"capacities": [], "per_sample_capacities": []}
    pipe = parallel_pipe()
    pipe.start_py_workers()
    assert pipe._cpp is None and len(pipe._pools) == 1 and len(pipe._pools[0]._procs) == 2
    assert pipe.external_source_shm_statistics() == {"capacities": [], "per_sample_capacities": []}
    out = pipe.run()[0]
    assert [np.array(t).shape for t in out] == [(1, 100), (2, 100), (3, 100), (1, 100)]
    stats = pipe.external_source_shm_statistics()
    # Two workers, two samples of each batch each (worker k: samples 4 * it + 2k, 4 * it + 2k + 1 of
    # 400-byte rows, each array 64-byte aligned in the block). The last block read from a worker may
    # be of a batch computed ahead: the first run() takes iterations 0 and 1 (the pipeline prefetches
    # 2), and the source computes one more (its prefetch_queue_depth=1): up to iteration 2.
    def block(it, k):
        return sum(-(-400 * (s % 3 + 1) // 64) * 64 for s in (4 * it + 2 * k, 4 * it + 2 * k + 1))
    assert len(stats["capacities"]) == 2
    for k in range(2):
        assert stats["capacities"][k] in {block(it, k) for it in range(3)}
    assert stats["per_sample_capacities"] == [c // 2 for c in stats["capacities"]]


def test_py_num_workers_zero_with_a_parallel_source_is_an_error():
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0, py_num_workers=0)
    with pipe:
        pipe.set_outputs(fn.external_source(source=sample_cb, batch=False, parallel=True))
    with pytest.raises(sluice.SluiceError, match="`py_num_workers` was set to `0`"):
        pipe.build()


def test_py_callback_pickler_pickles_the_callback_for_spawned_workers():
    MarkedPickler.dumped = 0
    pipe = parallel_pipe(py_start_method="spawn", py_callback_pickler=MarkedPickler)
    out = pipe.run()[0]
    assert [int(np.array(t)[0, 0]) for t in out] == [0, 1, 2, 3]
    assert MarkedPickler.dumped == 1
    with pytest.raises(ValueError, match="got 4 items"):
        parallel_pipe(py_start_method="spawn", py_callback_pickler=(MarkedPickler, {}, {}, {})).build()


def test_api_types_are_dalis():
    assert [t.name for t in PipelineAPIType] == ["BASIC", "ITERATOR", "SCHEDULED"]
