"""Shared by the plugin tests (test_plugin_*.py): pipelines over the repository's photographs, decoded
by Sluice, with the plugin's outputs next to the decoded images (the NumPy reference's input)."""
import os

import numpy as np
import pytest

import sluice
from sluice import fn, types
from sluice.errors import SluiceError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGES = os.path.join(ROOT, "tests", "data", "images")
# JPEG and PNG photographs of four shapes.
FILES = [os.path.join(IMAGES, f) for f in ("s420.jpg", "orient_1.jpg", "progressive.jpg", "rgb.png", "small.png",
                                           "orient_5.jpg", "s444.jpg", "resize_src.png")]
BATCH = 4


def build(graph, num_threads=2, resize=None, batch_size=BATCH):
    """graph(images) -> list of DataNodes; the pipeline returns (images, *graph's outputs)."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=num_threads, seed=7, device_id=None)
    with pipe:
        jpegs, _ = fn.readers.file(files=FILES, random_shuffle=False, name="Reader")
        images = fn.decoders.image(jpegs, output_type=types.RGB)
        if resize:
            images = fn.resize(images, size=resize)
        outs = graph(images)
        outs = [] if outs is None else list(outs) if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(images, *outs)
    pipe.build()
    return pipe


def run(pipe, iterations=2):
    """[iteration][output][sample] as NumPy arrays."""
    result = []
    for _ in range(iterations):
        result.append([[np.array(batch.at(i)) for i in range(len(batch))] for batch in pipe.run()])
    return result


def check_against(pipe, reference, iterations=2, **allclose):
    """Each iteration's outputs 1.. equal reference(image) (a list of arrays) sample by sample."""
    for outputs in run(pipe, iterations):
        images = outputs[0]
        for s, image in enumerate(images):
            expected = reference(image)
            for o, value in enumerate(expected):
                got = outputs[1 + o][s]
                assert got.dtype == np.asarray(value).dtype, (o, s, got.dtype, np.asarray(value).dtype)
                assert got.shape == np.shape(value), (o, s, got.shape, np.shape(value))
                if allclose:
                    np.testing.assert_allclose(got, value, **allclose)
                else:
                    np.testing.assert_array_equal(got, value)


def same_across_threads(graph, resize=None, iterations=3):
    one = run(build(graph, num_threads=1, resize=resize), iterations)
    three = run(build(graph, num_threads=3, resize=resize), iterations)
    for a, b in zip(one, three):
        for x, y in zip(a, b):
            for s, t in zip(x, y):
                np.testing.assert_array_equal(s, t)


def run_error(graph, resize=None):
    """The SluiceError the pipeline's first run raises."""
    pipe = build(graph, resize=resize)
    with pytest.raises(SluiceError) as info:
        pipe.run()
    return str(info.value)
