"""fn.external_source: callables, iterables, generators, StopIteration, cycling, manual feeding."""
import numpy as np
import pytest

import sluice
from sluice import fn, ops, types


def make_pipe(batch_size=2, **source_kwargs):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=1, seed=0)
    with pipe:
        src = fn.external_source(**source_kwargs)
        if isinstance(src, list):
            pipe.set_outputs(*src)
        else:
            pipe.set_outputs(src, src * 2)
    return pipe


def test_callable_with_iteration_index():
    def source(iteration):
        return [np.full((2, 3), iteration * 10 + i, dtype=np.float32) for i in range(2)]
    pipe = make_pipe(source=source, layout="HW", dtype=types.FLOAT)
    for k in range(4):
        data, doubled = pipe.run()
        assert data.layout() == "HW" and data.dtype == types.FLOAT
        np.testing.assert_array_equal(data.as_array()[:, 0, 0], [k * 10, k * 10 + 1])
        np.testing.assert_array_equal(doubled.as_array(), data.as_array() * 2)


def test_numpy_batch_and_bytes():
    pipe = make_pipe(source=lambda: np.arange(6, dtype=np.int32).reshape(2, 3))
    data, _ = pipe.run()
    assert data.as_array().tolist() == [[0, 1, 2], [3, 4, 5]]
    pipe = make_pipe(source=lambda: [b"abc", b"de"])
    data, _ = pipe.run()
    assert data.dtype == types.UINT8 and data.at(0).tolist() == [97, 98, 99] and data.shape() == [(3,), (2,)]


def _epoch(pipe):
    seen = []
    while True:
        try:
            data, _ = pipe.run()
        except StopIteration:
            break
        seen.append(data.as_array()[0].tolist())
    with pytest.raises(StopIteration):
        pipe.run()  # stays ended until reset()
    pipe.reset()
    return seen


def test_iterable_ends_the_epoch_with_stop_iteration_and_cycle_raise_restarts_it():
    batches = [[np.array([i, i + 100])] * 2 for i in range(3)]
    pipe = make_pipe(source=batches, cycle="raise")
    for epoch in range(2):
        assert _epoch(pipe) == [[0, 100], [1, 101], [2, 102]]


def test_non_cycling_iterable_is_not_restarted_by_reset_as_in_dali():
    # DALI iterates a non-cycling source once: after reset() the next epoch ends at once.
    batches = [[np.array([i, i + 100])] * 2 for i in range(3)]
    pipe = make_pipe(source=batches)
    assert _epoch(pipe) == [[0, 100], [1, 101], [2, 102]]
    assert _epoch(pipe) == []
    assert _epoch(pipe) == []

    def gen():
        for i in range(2):
            yield [np.array([i, 0])] * 2
    pipe = make_pipe(source=gen)  # a generator function: called once
    assert _epoch(pipe) == [[0, 0], [1, 0]]
    assert _epoch(pipe) == []


def test_generator_function_and_cycle():
    def gen():
        for i in range(2):
            yield [np.array([i])] * 2
    pipe = make_pipe(source=gen, cycle="quiet")
    assert [pipe.run()[0].as_array().ravel()[0] for _ in range(5)] == [0, 1, 0, 1, 0]

    pipe = make_pipe(source=gen, cycle="raise")
    assert [pipe.run()[0].as_array().ravel()[0] for _ in range(2)] == [0, 1]
    with pytest.raises(StopIteration):
        pipe.run()
    pipe.reset()
    assert pipe.run()[0].as_array().ravel()[0] == 0


def test_per_sample_source_and_multiple_outputs():
    def sample(info):
        return np.array([info.idx_in_epoch]), np.array([info.idx_in_batch * 1.5])
    pipe = make_pipe(batch_size=3, source=sample, batch=False, num_outputs=2)
    a, b = pipe.run()
    assert a.as_array().ravel().tolist() == [0, 1, 2]
    assert b.as_array().ravel().tolist() == [0, 1.5, 3.0]
    a, b = pipe.run()
    assert a.as_array().ravel().tolist() == [3, 4, 5]


def test_callback_errors_surface_with_their_traceback():
    def source():
        raise KeyError("broken source")
    pipe = make_pipe(source=source, name="src")
    with pytest.raises(KeyError, match="broken source") as e:
        pipe.run()
    assert any(tb.name == "source" for tb in e.traceback)
    assert "external_source 'src'" in "".join(getattr(e.value, "__notes__", []))


def test_wrong_batch_size_is_reported():
    pipe = make_pipe(source=lambda: [np.zeros(2)] * 3)
    with pytest.raises(ValueError, match="batch of 3 samples; the pipeline's batch_size is 2"):
        pipe.run()


def test_dtype_mismatch_is_reported():
    pipe = make_pipe(source=lambda: [np.zeros(2, dtype=np.int16)] * 2, dtype=types.FLOAT)
    with pytest.raises(sluice.SluiceError, match="dtype"):
        pipe.run()


def test_manual_feed_input():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1)
    with pipe:
        src = fn.external_source(name="in")
        pipe.set_outputs(src + 1)
    pipe.build()
    for k in range(3):
        pipe.feed_input("in", [np.array([k]), np.array([k + 10])])
        out, = pipe.run()
        assert out.as_array().ravel().tolist() == [k + 1, k + 11]
    with pytest.raises(sluice.SluiceError, match="no external_source or experimental.inputs.video named 'nope'"):
        pipe.feed_input("nope", [np.zeros(1)] * 2)


def test_ops_external_source_in_define_graph():
    class Pipe(sluice.Pipeline):
        def __init__(self):
            super().__init__(batch_size=2, num_threads=1, seed=0)
            self.src = ops.ExternalSource(source=lambda i: [np.array([i]), np.array([-i])])

        def define_graph(self):
            return self.src()

    pipe = Pipe()
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 0]
    assert pipe.run()[0].as_array().ravel().tolist() == [1, -1]


def test_iterator_runs_until_the_source_ends():
    pytest.importorskip("torch")  # sluice.plugin.pytorch imports it
    from sluice.plugin.pytorch import DALIGenericIterator

    batches = [[np.array([i, i]), np.array([i, -i])] for i in range(5)]
    pipe = make_pipe(source=batches, cycle="raise")  # DALI's notion of epochs for an iterable source
    it = DALIGenericIterator(pipe, ["data", "twice"])
    for _ in range(2):
        got = [b[0]["data"][0].tolist() for b in it]
        assert got == [[0, 0], [1, 1], [2, 2], [3, 3], [4, 4]]
        it.reset()
