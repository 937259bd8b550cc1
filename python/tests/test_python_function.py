"""fn.python_function / ops.PythonFunction: results, modes, dtypes and layouts, errors (the
function's traceback; wrong returns, also checked without the C++ operator), determinism across
thread counts, the GIL (the call runs on the executor's thread while the caller waits), checkpoint
refusal, and shutdown (a pipeline destroyed mid-call returns promptly; interpreter exit is clean)."""
import gc
import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import sluice
from sluice import fn, ops
from sluice.parallel_source import SampleInfo
from sluice.python_function import ReturnError, _invoke

BATCH = 4
ROOT = pathlib.Path(__file__).resolve().parents[2]


def source(info):
    """Deterministic samples of varying shape: (uint8 image-like, float32 vector)."""
    i = info.idx_in_epoch
    rng = np.random.default_rng(i)
    img = rng.integers(0, 256, size=(i % 3 + 2, 5, 3), dtype=np.uint8)
    vec = rng.standard_normal(i % 4 + 1).astype(np.float32)
    return img, vec


def image(info):
    return source(info)[0]


def build(graph, batch_size=BATCH, num_threads=2, **kwargs):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=num_threads, seed=7, **kwargs)
    with pipe:
        outs = graph()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    return pipe


def dtype_of(batch):
    return np.array(batch.at(0)).dtype.name


def samples(batch):
    return [np.array(batch.at(i)) for i in range(len(batch))]


def run_with_timeout(fn_, timeout=60):
    box = {}

    def target():
        try:
            box["value"] = fn_()
        except BaseException as e:  # noqa: BLE001
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), f"did not return within {timeout} s (a deadlock?)"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def expected_inputs(iteration):
    base = iteration * BATCH
    return [source(SampleInfo(base + i, i, iteration, 0)) for i in range(BATCH)]


# ---- results ----------------------------------------------------------------------------------

def test_per_sample_two_inputs_two_outputs_keep_dtype_and_shape():
    def f(img, vec):
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8
        return img[::-1].astype(np.int16) * 2, np.concatenate([vec, vec.sum(keepdims=True)]).astype(np.float64)

    def graph():
        img, vec = fn.external_source(source=source, num_outputs=2, batch=False)
        a, b = fn.python_function(img, vec, function=f, num_outputs=2)
        return a, b, img
    pipe = build(graph)
    for it in range(3):
        a, b, img = pipe.run()
        assert dtype_of(a) == "int16" and dtype_of(b) == "float64"
        for i, (x, v) in enumerate(expected_inputs(it)):
            np.testing.assert_array_equal(samples(a)[i], x[::-1].astype(np.int16) * 2)
            np.testing.assert_array_equal(samples(b)[i], np.concatenate([v, v.sum(keepdims=True)]).astype(np.float64))
            np.testing.assert_array_equal(samples(img)[i], x)  # the input is untouched


def test_batch_processing_gets_lists_and_returns_lists_or_a_dense_array():
    seen = []

    def f(imgs, vecs):
        seen.append((type(imgs), len(imgs), len(vecs)))
        return [x.mean(axis=2) for x in imgs], np.stack([np.full(2, len(v), np.int32) for v in vecs])

    def graph():
        img, vec = fn.external_source(source=source, num_outputs=2, batch=False)
        return fn.python_function(img, vec, function=f, num_outputs=2, batch_processing=True)
    pipe = build(graph, exec_async=False, exec_pipelined=False)
    means, lens = pipe.run()
    assert seen == [(list, BATCH, BATCH)]
    for i, (x, v) in enumerate(expected_inputs(0)):
        np.testing.assert_allclose(samples(means)[i], x.mean(axis=2))
        np.testing.assert_array_equal(samples(lens)[i], [len(v), len(v)])
    assert dtype_of(means) == "float64" and dtype_of(lens) == "int32"


@pytest.mark.parametrize("dtype", ["bool", "uint8", "uint16", "int8", "int16", "int32", "int64", "float16",
                                   "float32", "float64"])
def test_every_dtype_round_trips(dtype):
    def src(info):
        return (np.arange(6).reshape(2, 3) + info.idx_in_epoch).astype(dtype)

    def graph():
        x = fn.external_source(source=src, batch=False)
        return fn.python_function(x, function=lambda a: a.T.copy())
    out, = build(graph).run()
    assert dtype_of(out) == dtype
    for i in range(BATCH):
        np.testing.assert_array_equal(samples(out)[i], src(SampleInfo(i, i, 0, 0)).T)


def test_no_inputs_calls_the_function_once_per_sample():
    counter = iter(range(1000))

    def graph():
        return fn.python_function(function=lambda: np.array([next(counter)], np.int64))
    pipe = build(graph, num_threads=1, exec_async=False, exec_pipelined=False)
    assert [int(s[0]) for s in samples(pipe.run()[0])] == [0, 1, 2, 3]
    assert [int(s[0]) for s in samples(pipe.run()[0])] == [4, 5, 6, 7]


def test_output_layouts_one_string_a_list_and_a_shorter_list():
    def f(x):
        return x, x[..., 0], x

    def graph(layouts):
        def g():
            img = fn.external_source(source=image, batch=False)
            return fn.python_function(img, function=f, num_outputs=3, output_layouts=layouts)
        return g
    assert [o.layout() for o in build(graph(["HWC", "HW"])).run()] == ["HWC", "HW", ""]
    assert [o.layout() for o in build(graph(["HWC", "HW", "HWC"])).run()] == ["HWC", "HW", "HWC"]
    with pytest.raises(sluice.SluiceError, match="output_layouts.*'HWC' of output 1 has 3 dimensions"):
        build(graph("HWC")).run()


def test_ops_python_function_class():
    op = ops.PythonFunction(function=lambda x: x + 1, num_outputs=1)

    def graph():
        img = fn.external_source(source=image, batch=False)
        return op(img), img
    out, img = build(graph).run()
    for a, b in zip(samples(out), samples(img)):
        np.testing.assert_array_equal(a, b + 1)


def test_inputs_are_copies_the_function_may_keep_and_write():
    kept = []

    def f(x):
        kept.append(x)
        x[...] = 0  # writes its own copy, not the pipeline's buffer
        return np.array([len(kept)], np.int32)

    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=f), img
    pipe = build(graph)
    for it in range(2):
        _, img = pipe.run()
        for i, (x, _) in enumerate(expected_inputs(it)):
            np.testing.assert_array_equal(samples(img)[i], x)
    assert len(kept) >= 8 and all(k.flags.writeable for k in kept)


def test_never_pruned_from_the_graph():
    calls = []

    def graph():
        img = fn.external_source(source=image, batch=False)
        fn.python_function(img, function=lambda x: calls.append(1) or x)  # output unused
        return img
    build(graph, exec_async=False, exec_pipelined=False).run()
    assert len(calls) == BATCH


def test_num_outputs_zero_runs_for_its_side_effects():
    calls = []

    def graph():
        img = fn.external_source(source=image, batch=False)
        assert fn.python_function(img, function=lambda x: calls.append(x.shape[0]), num_outputs=0) == []
        return img
    pipe = build(graph, exec_async=False, exec_pipelined=False)
    pipe.run()
    pipe.run()
    assert calls == [x.shape[0] for it in (0, 1) for x, _ in expected_inputs(it)]


# ---- threads, GIL, determinism ----------------------------------------------------------------

def test_the_function_runs_on_an_executor_thread_while_the_caller_waits_without_the_gil():
    threads = set()
    ticks = []
    stop = threading.Event()

    def ticker():  # Python code that needs the GIL while run() waits
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    def f(x):
        threads.add(threading.get_ident())
        time.sleep(0.01)
        return x

    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=f)
    pipe = build(graph)
    t = threading.Thread(target=ticker)
    t.start()
    try:
        run_with_timeout(lambda: [pipe.run() for _ in range(5)])
    finally:
        stop.set()
        t.join()
    assert threading.get_ident() not in threads and len(threads) == 1
    assert len(ticks) > 10


def test_synchronous_executor_runs_it_without_deadlock():
    calls = []

    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=lambda x: calls.append(1) or x)
    pipe = build(graph, exec_async=False, exec_pipelined=False)
    run_with_timeout(lambda: [pipe.run() for _ in range(2)])
    assert len(calls) == 2 * BATCH


@pytest.mark.filterwarnings("ignore:prefer `reader_name`")
def test_through_the_pytorch_iterator():
    pytest.importorskip("torch")
    from sluice.plugin.pytorch import DALIGenericIterator

    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=lambda x: np.array([x.shape[0], int(x.sum())], np.int64))
    it = DALIGenericIterator(build(graph), ["stats"], size=3 * BATCH)
    got = run_with_timeout(lambda: [b[0]["stats"].numpy().tolist() for b in it])
    assert got == [[[x.shape[0], int(x.sum())] for x, _ in expected_inputs(k)] for k in range(3)]


def _jpeg_pipeline(num_threads):
    # The repository's photographs (tests/data/images), so that the test runs on a fresh clone too.
    files = sorted(str(p) for p in (ROOT / "tests" / "data" / "images").glob("*.jpg"))
    assert len(files) >= 8, files

    def graph():
        jpegs, labels = fn.readers.file(files=files, labels=list(range(len(files))), random_shuffle=True, seed=3)
        images = fn.decoders.image(jpegs)
        images = fn.resize(images, resize_x=32, resize_y=32)
        stats, flipped = fn.python_function(
            images, function=lambda im: (np.array([im.mean(), im.std()], np.float32), im[:, ::-1].copy()),
            num_outputs=2)
        summed = fn.python_function(flipped, labels, batch_processing=True,
                                    function=lambda ims, ls: [np.array([int(i.sum()) + int(l[0])]) for i, l in zip(ims, ls)])
        return stats, flipped, summed
    return build(graph, batch_size=8, num_threads=num_threads)


def test_same_results_with_one_and_two_threads():
    results = []
    for threads in (1, 2):
        pipe = _jpeg_pipeline(threads)
        results.append([[samples(o) for o in pipe.run()] for _ in range(3)])
        del pipe
    for batch1, batch2 in zip(*results):
        for out1, out2 in zip(batch1, batch2):
            for a, b in zip(out1, out2):
                np.testing.assert_array_equal(a, b)


# ---- errors -----------------------------------------------------------------------------------

def _helper_that_fails(x):
    raise ValueError(f"cannot handle shape {x.shape}")


def test_an_exception_fails_run_with_the_operator_and_the_traceback():
    def my_function(x):
        return _helper_that_fails(x)

    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=my_function, name="my_pyfn")
    pipe = build(graph)
    with pytest.raises(sluice.SluiceError) as e:
        run_with_timeout(pipe.run)
    msg = str(e.value)
    assert "[my_pyfn]" in msg and "python_function" in msg
    assert "ValueError: cannot handle shape (2, 5, 3)" in msg
    assert "Traceback (most recent call last)" in msg
    assert "my_function" in msg and "_helper_that_fails" in msg and "test_python_function.py" in msg
    assert e.value.op == "my_pyfn"


@pytest.mark.parametrize("function, num_outputs, batch_processing, match", [
    (lambda x: [1, 2], 1, False, "the result for sample 0 is a list, expected a NumPy array"),
    (lambda x: (x, x, x), 2, False, "returned 3 outputs, expected num_outputs=2"),
    (lambda x: x, 2, False, "returned an array of dtype uint8 and shape .*, expected a tuple of num_outputs=2"),
    (lambda x: np.array([object()]), 1, False, "has dtype object, which Sluice has no type for"),
    (lambda x: np.zeros(2, np.complex64), 1, False, "has dtype complex64, which Sluice has no type for"),
    (lambda x: x[:2], 1, True, "has 2 samples, the batch has 4"),
    (lambda x: 5, 1, True, "is a int, expected a list of 4 arrays"),
    (lambda x: x, 0, False, "with num_outputs=0 it must return None"),
])
def test_a_wrong_return_is_an_error_naming_the_operator(function, num_outputs, batch_processing, match):
    def graph():
        img = fn.external_source(source=image, batch=False)
        outs = fn.python_function(img, function=function, num_outputs=num_outputs,
                                  batch_processing=batch_processing, name="bad_fn")
        return [img] + (outs if isinstance(outs, list) else [outs])
    pipe = build(graph)
    with pytest.raises(sluice.SluiceError, match=match) as e:
        run_with_timeout(pipe.run)
    assert "[bad_fn] python_function:" in str(e.value)
    assert "Traceback" not in str(e.value)  # the message says what was expected


def test_mixed_dtypes_within_an_output_are_an_error():
    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, batch_processing=True,
                                  function=lambda xs: [x.astype(np.float32 if i else np.uint8) for i, x in enumerate(xs)])
    with pytest.raises(sluice.SluiceError, match="output 0: sample 1 has dtype float32, sample 0 has uint8"):
        build(graph).run()


# The checks of the function's result, without any pipeline (sluice.python_function._invoke is
# what the C++ operator calls).
def test_invoke_checks_returns_without_the_operator():
    x = [np.zeros((2, 2), np.uint8), np.ones((3, 2), np.uint8)]
    out = _invoke(lambda a: (a, a[:1, :1]), [x], 2, 2, False)
    assert [o.shape for o in out[0]] == [(2, 2), (3, 2)] and [o.shape for o in out[1]] == [(1, 1), (1, 1)]
    assert out[0][0].flags.c_contiguous
    assert _invoke(lambda a: a.T, [x], 2, 1, False)[0][1].flags.c_contiguous  # made contiguous
    big_endian = _invoke(lambda a: a.astype(">i4"), [x], 2, 1, False)[0][0]
    assert big_endian.dtype == np.dtype("int32") and big_endian.dtype.isnative
    assert _invoke(lambda a: np.float32(3), [x], 2, 1, False)[0][0].shape == ()
    assert len(_invoke(lambda a: np.stack(a[:1] * 2), [x[:1] * 2], 2, 1, True)[0]) == 2
    assert _invoke(lambda a: None, [x], 2, 0, False) == []
    with pytest.raises(ReturnError, match="the result for sample 0 is a str"):
        _invoke(lambda a: "no", [x], 2, 1, False)
    with pytest.raises(ReturnError, match="returned 1 outputs, expected num_outputs=2"):
        _invoke(lambda a: [a], [x], 2, 2, False)
    with pytest.raises(ReturnError, match="sample 1 of the result has dtype object"):
        _invoke(lambda a: [a[0], np.array([None])], [x], 2, 1, True)
    with pytest.raises(ReturnError, match="output 1 of the function has 1 samples, the batch has 2"):
        _invoke(lambda a: (a, a[:1]), [x], 2, 2, True)
    with pytest.raises(ReturnError, match="output 0: sample 1 has dtype int8"):
        _invoke(lambda a: [a[0], a[1].astype(np.int8)], [x], 2, 1, True)
    with pytest.raises(ZeroDivisionError):  # the function's own exception passes through unchanged
        _invoke(lambda a: 1 / 0, [x], 2, 1, False)


def test_bad_arguments_are_rejected_at_the_call():
    with pytest.raises(sluice.ArgumentError, match="must be callable"):
        fn.python_function(function=3)
    with pytest.raises(sluice.ArgumentError, match="only device='cpu'"):
        fn.python_function(function=lambda: 0, device="gpu")
    with pytest.raises(sluice.ArgumentError, match="num_outputs"):
        fn.python_function(function=lambda: 0, num_outputs=-1)
    with pytest.raises(sluice.ArgumentError, match="output_layouts"):
        fn.python_function(function=lambda: 0, output_layouts=3)
    with pytest.raises(sluice.ArgumentError, match="must be callable"):
        ops.PythonFunction(function=None)


def test_checkpointing_a_pipeline_with_python_function_is_a_clear_error():
    def graph():
        img = fn.external_source(source=image, batch=False)
        return fn.python_function(img, function=lambda x: x)
    pipe = build(graph, enable_checkpointing=True)
    with pytest.raises(sluice.SluiceError, match="python_function cannot be checkpointed"):
        pipe.run()


# ---- shutdown ---------------------------------------------------------------------------------

_DESTROY_SCRIPT = r"""
import gc, threading, time
import numpy as np
import sluice
from sluice import fn
started = threading.Event()

def slow(x):
    started.set()
    time.sleep(0.05)
    return x

pipe = sluice.Pipeline(batch_size=4, num_threads=2, seed=1, prefetch_queue_depth=3)
with pipe:
    x = fn.external_source(source=lambda info: np.full(3, info.idx_in_epoch, np.int32), batch=False)
    pipe.set_outputs(fn.python_function(x, function=slow))
pipe.build()
pipe.run()
assert started.wait(5)
t0 = time.monotonic()
del pipe  # mid-call: the executor is computing the next batches
gc.collect()
print(f"{time.monotonic() - t0:.3f}", flush=True)
"""


def _run_script(script, timeout=60):
    """Runs `script` in a fresh interpreter: a deadlock is a timeout there, not a hung test session."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, env=env)


def test_pipeline_destroyed_mid_call_returns_within_1s():
    r = _run_script(_DESTROY_SCRIPT)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.strip()) < 1.0


_EXIT_SCRIPT = r"""
import gc, os, sys, time, weakref
import numpy as np
import sluice
from sluice import fn
threads_before = len(os.listdir("/proc/self/task"))

def slow(x):
    time.sleep(0.02)
    {extra}
    return x

pipe = sluice.Pipeline(batch_size=4, num_threads=2, seed=1, prefetch_queue_depth=3)
with pipe:
    x = fn.external_source(source=lambda info: np.full(3, info.idx_in_epoch, np.int32), batch=False)
    pipe.set_outputs(fn.python_function(x, function=slow))
pipe.build()
for _ in range(3):
    pipe.run()
{after}
print("done", flush=True)
"""

# The last reference to the pipeline dies in a garbage collection inside the function, on the
# executor's own thread: the pipeline is destroyed on the main thread right after (a pending call).
_COLLECTED_ON_ITS_OWN_THREAD = """
pipe.cycle = pipe  # only a collection frees it now
import threading
collected_on = []
alive = weakref.ref(pipe, lambda _: collected_on.append(threading.get_ident()))
del pipe
deadline = time.monotonic() + 10
while (alive() is not None or len(os.listdir("/proc/self/task")) > threads_before) and time.monotonic() < deadline:
    time.sleep(0.01)
assert alive() is None, "not collected"
assert collected_on and collected_on[0] != threading.get_ident(), "not collected on the executor's thread"
assert len(os.listdir("/proc/self/task")) <= threads_before, "the executor's threads are still running"
"""


@pytest.mark.parametrize("extra, after", [
    ("", ""),                                          # exit with the executor still prefetching
    ("gc.collect()", _COLLECTED_ON_ITS_OWN_THREAD),
])
def test_interpreter_exit_with_a_running_pipeline_is_clean(extra, after):
    t0 = time.monotonic()
    r = _run_script(_EXIT_SCRIPT.format(extra=extra, after=after))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "done"
    assert "terminate" not in r.stderr and "Fatal" not in r.stderr, r.stderr
    assert time.monotonic() - t0 < 30
