"""Pipeline: graph styles, run methods, build, options, statistics, pipeline_def."""
import os
import threading
import time

import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

from conftest import label_pipeline, make_files, registered, requires_file_reader


def run_values(pipe, n=3):
    return [[o.as_array().copy() for o in pipe.run()] for _ in range(n)]


def test_run_returns_tensor_lists(counter_pipe):
    counter_pipe.build()
    a, b = counter_pipe.run()
    assert len(a) == 4
    assert a.as_array().ravel().tolist() == [0, 1, 2, 3]
    assert b.as_array().ravel().tolist() == [10, 11, 12, 13]
    a, b = counter_pipe.run()
    assert a.as_array().ravel().tolist() == [4, 5, 6, 7]


def test_build_is_idempotent_and_run_builds(counter_pipe):
    counter_pipe.build()
    counter_pipe.build()
    assert counter_pipe.run()[0].as_array().ravel().tolist() == [0, 1, 2, 3]


class RandomGraph(sluice.Pipeline):
    """define_graph style with ops classes."""

    def __init__(self, **kw):
        super().__init__(batch_size=8, num_threads=2, seed=42, **kw)
        self.counter = ops.testing.Counter(shape=[3])
        self.coin = ops.random.CoinFlip(probability=0.3)
        self.uniform = ops.random.Uniform(range=[-1.0, 1.0])
        self.add = ops.testing.AddConstant()

    def define_graph(self):
        c = self.counter()
        return c, self.coin(), self.uniform(), self.add(c, value=self.uniform())


def random_graph_fn():
    pipe = sluice.Pipeline(batch_size=8, num_threads=2, seed=42)
    with pipe:
        c = fn.testing.counter(shape=[3])
        coin = fn.random.coin_flip(probability=0.3)
        u = fn.random.uniform(range=[-1.0, 1.0])
        pipe.set_outputs(c, coin, u, fn.testing.add_constant(c, value=fn.random.uniform(range=[-1.0, 1.0])))
    return pipe


def test_both_graph_styles_give_identical_outputs():
    a = run_values(RandomGraph())
    b = run_values(random_graph_fn())
    for batch_a, batch_b in zip(a, b):
        for x, y in zip(batch_a, batch_b):
            np.testing.assert_array_equal(x, y)
    # ... and the random outputs are not constant.
    assert len(np.unique(np.concatenate([r[2].ravel() for r in a]))) > 1


def test_same_seed_same_outputs_different_seed_differs():
    def pipe(seed):
        p = sluice.Pipeline(batch_size=16, num_threads=1, seed=seed)
        with p:
            p.set_outputs(fn.random.uniform(range=[0.0, 1.0]))
        return p
    x, y, z = run_values(pipe(1), 2), run_values(pipe(1), 2), run_values(pipe(2), 2)
    np.testing.assert_array_equal(x[1][0], y[1][0])
    assert not np.array_equal(x[1][0], z[1][0])


@pytest.mark.parametrize("exec_async,exec_pipelined", [(True, True), (False, False), (False, True)])
def test_scheduled_api_matches_run(exec_async, exec_pipelined):
    def make():
        p = sluice.Pipeline(batch_size=3, num_threads=1, seed=0, exec_async=exec_async,
                            exec_pipelined=exec_pipelined, prefetch_queue_depth=3)
        with p:
            p.set_outputs(fn.testing.counter())
        return p
    expected = [b[0].ravel().tolist() for b in run_values(make(), 5)]
    pipe = make()
    got = []
    for _ in range(5):
        pipe.schedule_run()
        out, = pipe.share_outputs()
        got.append(out.as_array().ravel().tolist())
        pipe.release_outputs()
    assert got == expected == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11], [12, 13, 14]]


def test_mixing_run_methods_is_an_error(counter_pipe):
    counter_pipe.run()
    with pytest.raises(sluice.SluiceError, match="mix"):
        counter_pipe.share_outputs()


def test_outputs_stay_valid_after_release():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1)
    with pipe:
        pipe.set_outputs(fn.testing.counter(shape=[16]))
    pipe.schedule_run()
    first, = pipe.share_outputs()
    view = first.as_array()
    pipe.release_outputs()
    for _ in range(3):
        pipe.schedule_run()
        pipe.share_outputs()
        pipe.release_outputs()
    assert view[:, 0].tolist() == [0, 1]


def test_device_id_0_is_accepted_for_cpu_graphs():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, device_id=0, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 1]


def test_prefetch_queue_depth_dict():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2})
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    assert pipe.run()[0].as_array().ravel().tolist() == [0, 1]
    with pytest.raises(ValueError, match="exec_async"):
        sluice.Pipeline(batch_size=2, prefetch_queue_depth={"cpu_size": 3, "gpu_size": 2}, exec_async=False)
    with pytest.raises(ValueError, match="cpu_size"):
        sluice.Pipeline(batch_size=2, prefetch_queue_depth={"cpu": 3})


def test_invalid_batch_size_is_reported_at_build():
    pipe = sluice.Pipeline(batch_size=0, num_threads=1)
    with pipe:
        pipe.set_outputs(fn.testing.counter())
    with pytest.raises(sluice.SluiceError, match="batch_size"):
        pipe.build()


def test_executor_statistics_format():
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0, enable_memory_stats=True)
    with pipe:
        c = fn.testing.counter(shape=[8], name="counter")
        pipe.set_outputs(fn.testing.add_constant(c, name="plus"))
    pipe.run()
    stats = pipe.executor_statistics()
    assert set(stats) == {"counter", "plus"}
    for op_stats in stats.values():
        for key in ("real_memory_size", "max_real_memory_size", "reserved_memory_size", "max_reserved_memory_size"):
            assert isinstance(op_stats[key], list) and len(op_stats[key]) == 1  # one entry per output
            assert all(isinstance(v, int) for v in op_stats[key])
        assert op_stats["real_memory_size"][0] >= 4 * 8 * 8
        assert op_stats["reserved_memory_size"][0] >= op_stats["real_memory_size"][0]
        assert op_stats["batches"] >= 1 and op_stats["total_time_ms"] >= 0 and "mean_batch_ms" in op_stats
    q = pipe.queue_statistics()
    assert q["queue_capacity"] == 2 and q["cpu_queue_capacity"] == 2
    assert q["cpu_stage_ms"] > 0 and q["device_stage_ms"] == 0  # no mixed/gpu operators


def test_flip_hands_out_unflipped_samples_as_views():
    """flip's samples with no flag set are views of its input, not copies: their values are right,
    NumPy arrays of them stay intact through further runs, and with no flag set anywhere flip
    reserves no memory of its own."""
    pipe = sluice.Pipeline(batch_size=8, num_threads=2, seed=3)
    with pipe:
        x = fn.testing.counter(shape=[4, 5, 3])
        flags = fn.random.coin_flip(probability=0.5)
        pipe.set_outputs(x, fn.flip(x, horizontal=flags), flags)
    held = []
    for _ in range(6):  # the slots come round three times each
        xs, ys, fs = pipe.run()
        for i in range(8):
            flip = int(np.asarray(fs[i]).reshape(-1)[0])
            expected = np.asarray(xs[i])[:, ::-1] if flip else np.asarray(xs[i])
            held.append((np.asarray(ys[i]), expected.copy()))
    assert {bool((a == e).all()) for a, e in held} == {True}
    assert any(not np.array_equal(held[0][1], e) for _, e in held[8:])  # later batches differ

    pipe = sluice.Pipeline(batch_size=8, num_threads=2, seed=3, enable_memory_stats=True)
    with pipe:
        x = fn.testing.counter(shape=[4, 5, 3])
        pipe.set_outputs(fn.flip(x, horizontal=0, name="flip"))
    for k in range(3):
        (ys,) = pipe.run()
        assert all(np.array_equal(np.asarray(ys[i]), np.full((4, 5, 3), k * 8 + i)) for i in range(8))
    st = pipe.executor_statistics()["flip"]
    assert st["real_memory_size"][0] == 8 * 4 * 5 * 3 * np.asarray(ys[0]).itemsize
    assert st["reserved_memory_size"][0] == 0


def test_pipeline_def_bare_and_with_arguments():
    @sluice.pipeline_def
    def bare(value=1.0):
        return fn.testing.add_constant(fn.testing.counter(), value=value)

    @sluice.pipeline_def(batch_size=3, num_threads=1)
    def with_args(value, seed):  # `seed` is the function's: it does not reach the Pipeline
        return fn.testing.add_constant(fn.testing.counter(), value=value + seed)

    p = bare(batch_size=2, num_threads=1, seed=5, value=100.0)
    assert p.batch_size == 2 and p.seed == 5
    assert p.run()[0].as_array().ravel().tolist() == [100, 101]
    q = with_args(value=10.0, seed=1000)
    assert q.batch_size == 3 and q.seed != 1000
    assert q.run()[0].as_array().ravel().tolist() == [1010, 1011, 1012]
    with pytest.raises(TypeError, match="unexpected"):
        bare(batch_size=2, bogus=1)


def test_current_pipeline_context():
    pipe = sluice.Pipeline(batch_size=1)
    assert sluice.Pipeline.current() is None
    with pipe:
        assert sluice.Pipeline.current() is pipe
    assert sluice.Pipeline.current() is None


def test_types_convert_to_schema_strings():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.random.uniform(range=[0, 4], dtype=types.FLOAT64),
                         fn.random.coin_flip(dtype=types.UINT8))
    u, c = pipe.run()
    assert u.dtype == types.FLOAT64 and u.as_array().dtype == np.float64
    assert c.dtype == types.UINT8


@requires_file_reader
def test_reader_meta_and_epoch_size(tmp_path):
    files = make_files(tmp_path, 7)
    pipe = label_pipeline(files, 2, num_shards=2, shard_id=1, pad_last_batch=True)
    pipe.build()
    meta = pipe.reader_meta("Reader")
    assert meta == {"epoch_size": 7, "epoch_size_padded": 8, "number_of_shards": 2, "shard_id": 1,
                    "pad_last_batch": True, "stick_to_shard": False}
    assert pipe.reader_meta() == {"Reader": meta}
    assert pipe.epoch_size("Reader") == 8
    assert pipe.epoch_size() == {"Reader": 8}
    with pytest.raises(sluice.SluiceError, match="did you mean 'Reader'"):
        pipe.reader_meta("Reader1")


IMAGE_OPS = ["readers.file", "decoders.image_random_crop", "resize", "crop_mirror_normalize"]
IMAGES = sorted(os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images", f)
                for f in ("s420.jpg", "s422.jpg", "s444.jpg", "progressive.jpg", "photo_500x375.jpg", "gray.jpg"))


@pytest.mark.skipif(not all(registered(op) for op in IMAGE_OPS), reason="image operators are not registered")
def test_image_pipeline_fn_and_ops_styles_match():
    """The classic DALI training pipeline, written in both styles, with random crops and mirrors."""
    mean, std = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]

    @sluice.pipeline_def(batch_size=3, num_threads=2, seed=12, device_id=0)
    def fn_style():
        jpegs, labels = fn.readers.file(files=IMAGES, random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB)
        images = fn.resize(images, resize_x=64, resize_y=48, interp_type=types.INTERP_TRIANGULAR)
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout=types.NCHW, crop=(48, 64),
                                          mean=mean, std=std, mirror=fn.random.coin_flip(probability=0.5))
        return images, labels

    class OpsStyle(sluice.Pipeline):
        def __init__(self):
            super().__init__(batch_size=3, num_threads=2, seed=12, device_id=0)
            self.input = ops.FileReader(files=IMAGES, random_shuffle=True)
            self.decode = ops.ImageDecoderRandomCrop(device="cpu", output_type=types.RGB)
            self.res = ops.Resize(resize_x=64, resize_y=48, interp_type=types.INTERP_TRIANGULAR)
            self.cmn = ops.CropMirrorNormalize(dtype=types.FLOAT, output_layout="CHW", crop=(48, 64),
                                               mean=mean, std=std)
            self.coin = ops.CoinFlip(probability=0.5)

        def define_graph(self):
            jpegs, labels = self.input(name="Reader")
            images = self.res(self.decode(jpegs))
            return self.cmn(images, mirror=self.coin()), labels

    a, b = fn_style(), OpsStyle()
    for _ in range(4):
        (ia, la), (ib, lb) = a.run(), b.run()
        assert ia.as_array().shape == (3, 3, 48, 64) and ia.layout() == "CHW"
        np.testing.assert_array_equal(la.as_array(), lb.as_array())
        np.testing.assert_array_equal(ia.as_array(), ib.as_array())
    assert a.epoch_size("Reader") == b.epoch_size("Reader") == 6


def test_run_releases_the_gil():
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0, exec_async=False, exec_pipelined=False)
    with pipe:
        pipe.set_outputs(fn.testing.sleep(fn.testing.counter(), ms=50))
    pipe.build()
    ticks, stop = [], threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    t = threading.Thread(target=tick)
    t.start()
    start = time.perf_counter()
    pipe.run()  # about 200 ms of C++ work on this thread
    end = time.perf_counter()
    stop.set()
    t.join()
    assert end - start >= 0.15
    assert sum(start < x < end for x in ticks) >= 10


@pytest.mark.skipif(not all(registered(op) for op in IMAGE_OPS), reason="image operators are not registered")
def test_fuse_operators_changes_the_statistics_not_the_outputs():
    """Pipeline(fuse_operators=...): resize + crop_mirror_normalize become one operator by default, with
    the same outputs (and the same random numbers after them) as with fusion off."""
    mean, std = [0.485 * 255, 0.456 * 255, 0.406 * 255], [0.229 * 255, 0.224 * 255, 0.225 * 255]

    def make(fuse):
        @sluice.pipeline_def(batch_size=3, num_threads=2, seed=12, device_id=None, fuse_operators=fuse)
        def pipe():
            jpegs, labels = fn.readers.file(files=IMAGES, random_shuffle=True, name="Reader")
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_x=64, resize_y=48, name="rs")
            images = fn.crop_mirror_normalize(images, dtype=types.FLOAT16, crop=(40, 56), mean=mean, std=std,
                                              mirror=fn.random.coin_flip(probability=0.5), name="cmn")
            return images, labels, fn.random.uniform(range=[0, 1])
        p = pipe()
        p.build()
        return p

    fused, plain = make(True), make(False)
    assert fused.fuse_operators and not plain.fuse_operators
    for _ in range(3):
        a, b = fused.run(), plain.run()
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x.as_array(), y.as_array())
    assert "rs+cmn" in fused.executor_statistics() and "rs" not in fused.executor_statistics()
    assert {"rs", "cmn"} <= set(plain.executor_statistics())
