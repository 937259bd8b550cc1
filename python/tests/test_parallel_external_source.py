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


def test_pipeline_deleted_mid_epoch_stops_workers_within_1s():
    pipe = make_pipe(True, slow_cb, batch=False, workers=2, prefetch_queue_depth=2)
    pipe.run()
    procs = [p for p in pipe._sources[0].pool._procs]
    assert all(p.is_alive() for p in procs)
    t0 = time.monotonic()
    del pipe
    gc.collect()
    for p in procs:
        p.join(max(0.0, 1.0 - (time.monotonic() - t0)))
    assert time.monotonic() - t0 < 1.0
    assert not any(p.is_alive() for p in procs)


def test_invalid_parallel_sources_are_rejected():
    with pytest.raises(sluice.ArgumentError, match="iterable or a generator"):
        make_pipe(True, [np.zeros((BATCH, 2))])

    def gen():
        yield np.zeros((BATCH, 2))
    with pytest.raises(sluice.ArgumentError, match="iterable or a generator"):
        make_pipe(True, gen)
    with pytest.raises(sluice.ArgumentError, match="exactly one"):
        make_pipe(True, lambda: np.zeros((BATCH, 2)))
    with pytest.raises(ValueError, match="py_start_method"):
        make_pipe(True, sample_cb, num_outputs=2, batch=False, method="forkserver_typo")


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
