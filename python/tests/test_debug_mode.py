"""pipeline_def(debug=True) (sluice.experimental.debug_mode): the function runs eagerly at each
run(), intermediate DataNodes hold data, and the outputs (random operators and shuffling readers
included) equal the same pipeline run as a graph."""
import os

import numpy as np
import pytest

from sluice import fn, types
from sluice.errors import SluiceError
from sluice.pipeline.experimental import pipeline_def
from sample_images import sample_data_root  # noqa: E402

IMAGE_DIR = os.path.join(sample_data_root(), "train")


def _augment(seen):
    jpegs, labels = fn.readers.file(file_root=IMAGE_DIR, random_shuffle=True, initial_fill=32)
    images = fn.decoders.image(jpegs, output_type=types.RGB, scaled_decode=False)
    images = fn.resize(images, resize_shorter=fn.random.uniform(range=[40, 56]))
    pos_x = fn.random.uniform(range=[0.0, 1.0])
    mirror = fn.random.coin_flip(probability=0.5)
    out = fn.crop_mirror_normalize(images, crop=(32, 32), crop_pos_x=pos_x, crop_pos_y=0.5, mirror=mirror,
                                   mean=[128.0, 128, 128], std=[64.0, 64, 64], dtype=types.FLOAT)
    noise = fn.random.normal(shape=[3])
    if seen is not None:
        seen.append((labels.get(), str(mirror)))
    return out, labels * 10 + 1, noise


def _pipelines(seed):
    seen = []

    @pipeline_def(batch_size=3, num_threads=2, device_id=None, seed=seed)
    def pipe(debug_seen=None):
        return _augment(debug_seen)

    return pipe(debug=False), pipe(debug=True, debug_seen=seen), seen


def test_debug_outputs_equal_the_graph_random_operators_and_shuffle_included():
    graph, debug, seen = _pipelines(seed=17)
    graph.build()
    debug.build()
    for _ in range(3):
        g_out = graph.run()
        d_out = debug.run()
        assert len(g_out) == len(d_out) == 3
        for g, d in zip(g_out, d_out):
            assert len(g) == len(d) == 3
            for i in range(3):
                np.testing.assert_array_equal(np.asarray(d[i]), np.asarray(g[i]))
    assert len(seen) == 3


def test_intermediate_nodes_hold_data_and_print():
    _, debug, seen = _pipelines(seed=3)
    (out, labels, _noise) = debug.run()
    got_labels, printed = seen[0]
    assert len(got_labels) == 3
    np.testing.assert_array_equal(np.asarray(labels.as_tensor()), np.asarray(got_labels.as_tensor()) * 10 + 1)
    assert printed.startswith("DataNodeDebug(") and "coin_flip" in printed
    assert out.layout() == "CHW"


def test_expression_get_and_shape_in_debug_mode():
    shapes = []

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        c = fn.testing.counter()
        doubled = c * 2 + 1
        shapes.append((doubled.get().as_array().ravel().tolist(), c.shape()))
        return doubled

    p = pipe()
    (out,) = p.run()
    assert out.as_array().ravel().tolist() == [1, 3]
    (out,) = p.run()
    assert out.as_array().ravel().tolist() == [5, 7]
    assert shapes[0] == ([1, 3], [(1,), (1,)])


def test_the_function_must_make_the_same_calls_each_iteration():
    calls = iter([True, False])

    @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        c = fn.testing.counter()
        return fn.cast(c, dtype=types.FLOAT) if next(calls) else c + 1

    p = pipe()
    p.run()
    with pytest.raises(SluiceError, match="same operator calls"):
        p.run()


def test_graph_only_apis_are_errors_in_debug_mode():
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, debug=True)
    def pipe():
        return fn.testing.counter()

    p = pipe()
    with pytest.raises(SluiceError, match="debug mode"):
        p.schedule_run()
    with pytest.raises(SluiceError, match="only in debug mode"):
        @pipeline_def(batch_size=2, num_threads=1, device_id=None)
        def graph_pipe():
            c = fn.testing.counter()
            c.get()
            return c
        graph_pipe()
