"""external_source(parallel=True): worker processes, shared memory, ordering, errors, shutdown."""
import gc
import os
import signal
import threading
import time

import numpy as np
import pytest

import sluice
from sluice import fn
from sluice.parallel_source import WorkerError

BATCH = 4
EPOCH_SAMPLES = 10  # 2 full batches; the third is cut short by StopIteration


# Module-level callbacks: picklable for py_start_method="spawn".
def sample_cb(info):
    if info.idx_in_epoch >= EPOCH_SAMPLES:
        raise StopIteration
    shape = (info.idx_in_epoch % 3 + 1, 5)
    rng = np.random.default_rng(info.idx_in_epoch + 1000 * info.epoch_idx)
    return rng.standard_normal(shape).astype(np.float32), np.array([info.idx_in_batch, info.iteration],
                                                                     dtype=np.int64)


def batch_cb(info):
    if info.iteration >= 3:
        raise StopIteration
    return [np.full((info.iteration + 1, 2), 10 * info.iteration + i + 100 * info.epoch_idx, dtype=np.int32)
            for i in range(BATCH)]


def iteration_cb(iteration):
    return np.arange(BATCH * 3, dtype=np.uint8).reshape(BATCH, 3) + iteration


def raising_cb(info):
    if info.idx_in_epoch == 5:
        raise ValueError("bad sample five")
    return np.zeros(2, np.float32)


def killing_cb(info):
    if info.idx_in_epoch == 6:
        os.kill(os.getpid(), signal.SIGKILL)
    return np.zeros(2, np.float32)


def slow_cb(info):
    time.sleep(0.05)
    return np.full(3, info.idx_in_epoch, np.int32)


def heavy_cb(info):
    # ~5 ms of single-threaded elementwise NumPy work (no BLAS, whose own threads would blur 1 vs 2)
    a = np.random.default_rng(info.idx_in_epoch).standard_normal(60_000)
    for _ in range(8):
        a = np.sin(a) * np.cos(a) + np.sqrt(np.abs(a))
    return a[:64].astype(np.float32)


def make_pipe(parallel, source, num_outputs=None, workers=1, method="fork", **kwargs):
    pipe = sluice.Pipeline(batch_size=BATCH, num_threads=1, seed=0, py_num_workers=workers,
                           py_start_method=method)
    with pipe:
        out = fn.external_source(source=source, num_outputs=num_outputs, parallel=parallel, **kwargs)
        pipe.set_outputs(*(out if isinstance(out, list) else [out]))
    pipe.build()
    return pipe


def run_epochs(pipe, epochs=2, max_iters=50):
    result = []
    for _ in range(epochs):
        epoch = []
        for _ in range(max_iters):
            try:
                outs = pipe.run()
            except StopIteration:
                break
            epoch.append([[np.array(o.at(i)) for i in range(len(o))] for o in outs])
        result.append(epoch)
        pipe.reset()
    return result


def assert_same(a, b):
    assert len(a) == len(b)
    for ea, eb in zip(a, b):
        assert len(ea) == len(eb)
        for ba, bb in zip(ea, eb):
            for oa, ob in zip(ba, bb):
                assert len(oa) == len(ob)
                for sa, sb in zip(oa, ob):
                    assert sa.dtype == sb.dtype
                    np.testing.assert_array_equal(sa, sb)


def call_with_timeout(fn_, timeout=30):
    """Runs fn_ in a thread; fails (instead of hanging the suite) if it does not return in time."""
    box = {}

    def target():
        try:
            box["value"] = fn_()
        except BaseException as e:  # noqa: BLE001
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"did not return within {timeout} s (a hang)"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.parametrize("workers", [1, 2])
def test_per_sample_equals_serial(workers, method):
    serial = run_epochs(make_pipe(False, sample_cb, num_outputs=2, batch=False))
    assert [len(e) for e in serial] == [2, 2]
    pipe = make_pipe(True, sample_cb, num_outputs=2, batch=False, workers=workers, method=method)
    parallel = call_with_timeout(lambda: run_epochs(pipe))
    assert_same(parallel, serial)


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.parametrize("workers", [1, 2])
def test_batch_callback_equals_serial(workers, method):
    serial = run_epochs(make_pipe(False, batch_cb, batch=True, batch_info=True))
    assert [len(e) for e in serial] == [3, 3]
    pipe = make_pipe(True, batch_cb, batch=True, batch_info=True, workers=workers, method=method,
                     prefetch_queue_depth=2)
    parallel = call_with_timeout(lambda: run_epochs(pipe))
    assert_same(parallel, serial)


def test_batch_callback_with_iteration_index():
    serial = run_epochs(make_pipe(False, iteration_cb), epochs=1, max_iters=5)
    parallel = call_with_timeout(lambda: run_epochs(make_pipe(True, iteration_cb, workers=2), epochs=1, max_iters=5))
    assert_same(parallel, serial)


def test_ordering_and_determinism_with_uneven_work():
    # Samples take different times (sleep), so workers finish out of order; the batches are in order.
    def check():
        pipe = make_pipe(True, slow_cb, batch=False, workers=3, prefetch_queue_depth=3)
        return [pipe.run()[0].as_array()[:, 0].tolist() for _ in range(4)]
    first = call_with_timeout(check)
    assert first == [[4 * k + i for i in range(4)] for k in range(4)]
    assert call_with_timeout(check) == first


def test_callback_exception_names_source_and_sample_with_traceback():
    pipe = make_pipe(True, raising_cb, batch=False, workers=2, name="my_src")

    def go():
        for _ in range(5):
            pipe.run()
    with pytest.raises(WorkerError) as e:
        call_with_timeout(go)
    msg = str(e.value)
    assert "my_src" in msg and "bad sample five" in msg and "ValueError" in msg
    assert "idx_in_epoch=5" in msg
    assert "Traceback" in msg and "raising_cb" in msg


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_killed_worker_is_an_error_not_a_hang(method):
    pipe = make_pipe(True, killing_cb, batch=False, workers=2, method=method, name="killer")

    def go():
        for _ in range(5):
            pipe.run()
    t0 = time.monotonic()
    with pytest.raises(WorkerError) as e:
        call_with_timeout(go, timeout=30)
    assert time.monotonic() - t0 < 10
    msg = str(e.value)
    assert "killer" in msg and "died" in msg and "idx_in_epoch=6" in msg, msg


def test_pipeline_deleted_mid_epoch_stops_workers_promptly():
    pipe = make_pipe(True, slow_cb, batch=False, workers=2, prefetch_queue_depth=2)
    pipe.run()
    procs = [p for p in pipe._sources[0].pool._procs]
    assert all(p.is_alive() for p in procs)
    t0 = time.monotonic()
    del pipe
    gc.collect()
    for p in procs:
        p.join(max(0.0, SHUTDOWN_S - (time.monotonic() - t0)))
    assert time.monotonic() - t0 < SHUTDOWN_S
    assert not any(p.is_alive() for p in procs)


def test_invalid_parallel_sources_are_rejected():
    with pytest.raises(sluice.ArgumentError, match="with an iterable must run in batch mode"):
        make_pipe(True, [np.zeros((BATCH, 2))], batch=False)

    def gen():
        yield np.zeros((BATCH, 2))
    with pytest.raises(sluice.ArgumentError, match="with a generator function must run in batch mode"):
        make_pipe(True, gen, batch=False)
    with pytest.raises(sluice.ArgumentError, match="exactly one"):
        make_pipe(True, lambda: np.zeros((BATCH, 2)))
    with pytest.raises(ValueError, match="py_start_method"):
        make_pipe(True, sample_cb, num_outputs=2, batch=False, method="forkserver_typo")


# ---- generator functions and iterables (batch=True): iterated by one worker ------------------------

def batch_gen():
    """A generator function: 3 batches per epoch (images, labels); a fresh pass each epoch."""
    for it in range(3):
        yield ([np.full((it + 1, 2), 10 * it + i, dtype=np.int32) for i in range(BATCH)],
               np.arange(BATCH, dtype=np.int64).reshape(BATCH, 1) + it)


class Batches:
    """An iterable (iter() gives a fresh pass), picklable for spawn."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return (np.full((BATCH, 3), k, dtype=np.float32) for k in range(self.n))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_generator_function_equals_serial_and_restarts_each_epoch(method):
    # cycle="raise": DALI's epochs over a generator function (a fresh pass after each StopIteration)
    serial = run_epochs(make_pipe(False, batch_gen, num_outputs=2, cycle="raise"), epochs=3)
    assert [len(e) for e in serial] == [3, 3, 3]
    pipe = make_pipe(True, batch_gen, num_outputs=2, workers=2, method=method, prefetch_queue_depth=2,
                     cycle="raise")
    parallel = call_with_timeout(lambda: run_epochs(pipe, epochs=3))
    assert_same(parallel, serial)
    assert len(pipe._sources[0].pool._procs) == 1  # one worker iterates over it, whatever py_num_workers


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_iterable_equals_serial(method):
    serial = run_epochs(make_pipe(False, Batches(4), cycle="raise"), epochs=2)
    assert [len(e) for e in serial] == [4, 4]
    parallel = call_with_timeout(lambda: run_epochs(make_pipe(True, Batches(4), method=method, prefetch_queue_depth=3,
                                                              cycle="raise"), epochs=2))
    assert_same(parallel, serial)


def test_non_cycling_sources_are_iterated_once_in_workers_too():
    # As DALI: without cycle, an iterable or generator function is not restarted by reset().
    for source, n in ((Batches(3), 3), (batch_gen, 3)):
        num_outputs = 2 if source is batch_gen else None
        serial = run_epochs(make_pipe(False, source, num_outputs=num_outputs), epochs=3)
        assert [len(e) for e in serial] == [n, 0, 0]
        parallel = call_with_timeout(lambda: run_epochs(make_pipe(True, source, num_outputs=num_outputs,
                                                                  prefetch_queue_depth=2), epochs=3))
        assert_same(parallel, serial)


def test_iterable_with_cycle_quiet_never_ends():
    pipe = make_pipe(True, Batches(2), cycle="quiet", prefetch_queue_depth=2)
    got = call_with_timeout(lambda: [int(pipe.run()[0].as_array()[0, 0]) for _ in range(5)])
    assert got == [0, 1, 0, 1, 0]


def test_generator_work_runs_in_a_worker_process():
    def whose_pid():
        while True:
            yield [np.array([os.getpid()], np.int64)] * BATCH
    pipe = make_pipe(True, whose_pid)
    pids = call_with_timeout(lambda: {int(pipe.run()[0].as_array()[0, 0]) for _ in range(3)})
    assert pids == {pipe._sources[0].pool._procs[0].pid} and os.getpid() not in pids


def test_generator_exception_is_an_error_naming_the_source():
    def failing():
        yield [np.zeros(2, np.float32)] * BATCH
        raise KeyError("missing shard")
    pipe = make_pipe(True, failing, name="gen_src")
    with pytest.raises(WorkerError) as e:  # at the first or the second run (the second batch is prefetched)
        call_with_timeout(lambda: [pipe.run() for _ in range(3)])
    assert "gen_src" in str(e.value) and "missing shard" in str(e.value) and "KeyError" in str(e.value)


# ---- shutdown: a pipeline going away frees its workers and shared memory ----------------------------

# How long shutting a pipeline down may take: workers are told to stop and joined, never drained. A
# hang fails it; the margin over the ~0.1 s it takes on an idle machine absorbs a loaded CI host (a
# 1 s limit failed there once at 1.18 s).
SHUTDOWN_S = 5.0


def _shm_blocks():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("psm_")}
    except FileNotFoundError:
        return set()


def _gone_within(procs, seconds):
    deadline = time.monotonic() + seconds
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    return not any(p.is_alive() for p in procs) and time.monotonic() < deadline + 0.05


@pytest.mark.parametrize("source, kwargs", [
    (slow_cb, {"batch": False}),
    (batch_gen, {"num_outputs": 2}),
])
def test_del_pipe_frees_workers_and_shared_memory_promptly(source, kwargs):
    before = _shm_blocks()
    pipe = make_pipe(True, source, workers=2, prefetch_queue_depth=3, **kwargs)
    pipe.run()  # mid-epoch, with batches in flight
    procs = list(pipe._sources[0].pool._procs)
    pids = [p.pid for p in procs]
    assert all(p.is_alive() for p in procs)
    t0 = time.monotonic()
    del pipe
    gc.collect()
    assert time.monotonic() - t0 < SHUTDOWN_S  # destroying it mid-epoch returns promptly
    assert _gone_within(procs, SHUTDOWN_S), [p.pid for p in procs if p.is_alive()]
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"
    deadline = time.monotonic() + SHUTDOWN_S
    while _shm_blocks() - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not (_shm_blocks() - before), "shared memory blocks left behind"


def test_del_pipe_frees_workers_without_a_garbage_collection():
    # The graph's references back to the pipeline are dropped at build(): no cycle keeps it alive.
    gc.collect()
    gc.disable()
    try:
        def graph_with_arithmetic():
            pipe = sluice.Pipeline(batch_size=BATCH, num_threads=1, seed=0, py_num_workers=2)
            with pipe:
                x = fn.external_source(source=slow_cb, batch=False, parallel=True)
                pipe.set_outputs(x * 2 + 1, x)
            pipe.build()
            pipe.run()
            return pipe
        pipe = graph_with_arithmetic()
        procs = list(pipe._sources[0].pool._procs)
        t0 = time.monotonic()
        del pipe
        assert time.monotonic() - t0 < SHUTDOWN_S
        assert _gone_within(procs, SHUTDOWN_S)
    finally:
        gc.enable()


def test_pipeline_def_pipeline_in_an_iterator_going_out_of_scope_frees_its_workers():
    pytest.importorskip("torch")  # sluice.plugin.pytorch imports it
    from sluice.plugin.pytorch import DALIGenericIterator

    @sluice.pipeline_def(batch_size=BATCH, num_threads=1, seed=0, py_num_workers=2)
    def pipe_fn():
        return fn.external_source(source=slow_cb, batch=False, parallel=True, prefetch_queue_depth=2)

    def use():
        it = DALIGenericIterator(pipe_fn(), ["x"], size=-1)
        next(it)
        return list(it._pipes[0]._sources[0].pool._procs)
    procs = use()
    gc.collect()
    assert _gone_within(procs, SHUTDOWN_S)


def test_throughput_one_vs_two_workers(capsys):
    """A measurement, not an assertion: ~CPU-heavy NumPy work per sample, 1 vs 2 workers."""
    rates = {}
    for workers in (1, 2):
        pipe = make_pipe(True, heavy_cb, batch=False, workers=workers, prefetch_queue_depth=2)
        pipe.run()  # warm up
        n, t0 = 10, time.perf_counter()
        for _ in range(n):
            pipe.run()
        rates[workers] = n * BATCH / (time.perf_counter() - t0)
        del pipe
        gc.collect()
    t0 = time.perf_counter()
    for i in range(10 * BATCH):
        heavy_cb(_info(i))
    per_sample_ms = (time.perf_counter() - t0) / (10 * BATCH) * 1000
    with capsys.disabled():
        print(f"\n[parallel external_source] callback {per_sample_ms:.1f} ms/sample; "
              f"1 worker: {rates[1]:.0f} samples/s, 2 workers: {rates[2]:.0f} samples/s "
              f"(x{rates[2] / rates[1]:.2f})")


def _info(i):
    from sluice.external_source import SampleInfo
    return SampleInfo(i, 0, 0, 0)
