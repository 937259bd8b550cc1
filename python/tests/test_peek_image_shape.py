"""peek_image_shape (the decoded shape from the headers alone) and random_crop_generator (a crop
window per shape), DALI 2.4's operators. The expected shapes are DALI 2.4.0's outputs for the same
files (recorded with nvidia-dali-cuda120==2.4.0 on the CPU)."""
import os

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types

IMAGES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images")

# file -> DALI 2.4's [default, GRAY + FLOAT, ANY_DATA without orientation, YCbCr]
DALI_PEEK = {
    "gray.jpg": [[113, 157, 3], [113, 157, 1], [113, 157, 1], [113, 157, 3]],
    "cmyk.jpg": [[113, 157, 3], [113, 157, 1], [113, 157, 4], [113, 157, 3]],
    "gray_alpha.png": [[29, 37, 3], [29, 37, 1], [29, 37, 2], [29, 37, 3]],
    "orient_6.jpg": [[32, 48, 3], [32, 48, 1], [48, 32, 3], [32, 48, 3]],
    "photo_500x375.jpg": [[375, 500, 3], [375, 500, 1], [375, 500, 3], [375, 500, 3]],
    "rgba.png": [[29, 37, 3], [29, 37, 1], [29, 37, 4], [29, 37, 3]],
    "gray16.png": [[29, 37, 3], [29, 37, 1], [29, 37, 1], [29, 37, 3]],
    "palette.png": [[29, 37, 3], [29, 37, 1], [29, 37, 3], [29, 37, 3]],
    "rgba_lossless.webp": [[29, 37, 3], [29, 37, 1], [29, 37, 4], [29, 37, 3]],
    "rgb.ppm": [[29, 37, 3], [29, 37, 1], [29, 37, 3], [29, 37, 3]],
    "gray.pgm": [[29, 37, 3], [29, 37, 1], [29, 37, 1], [29, 37, 3]],
}


def _encoded(names):
    return [np.fromfile(os.path.join(IMAGES, n), np.uint8) for n in names]


def _run(graph, batch, threads=1, seed=1):
    pipe = pipeline_def(graph)(batch_size=batch, num_threads=threads, device_id=None, seed=seed)
    pipe.build()
    return pipe.run()


def test_peek_image_shape_is_dalis():
    names = list(DALI_PEEK)

    def graph():
        e = fn.external_source(source=lambda: _encoded(names), batch=True)
        return (fn.peek_image_shape(e), fn.peek_image_shape(e, image_type=types.GRAY, dtype=types.FLOAT),
                fn.peek_image_shape(e, image_type=types.ANY_DATA, adjust_orientation=False),
                fn.peek_image_shape(e, image_type=types.YCbCr))

    outs = _run(graph, len(names))
    assert outs[0].at(0).dtype == np.int64 and outs[1].at(0).dtype == np.float32
    for i, name in enumerate(names):
        assert [o.at(i).tolist() for o in outs] == DALI_PEEK[name], name


@pytest.mark.parametrize("output_type", [types.RGB, types.GRAY, types.ANY_DATA])
def test_peek_agrees_with_the_decoder(output_type):
    names = sorted(n for n in os.listdir(IMAGES) if n.endswith((".jpg", ".png", ".webp", ".bmp", ".ppm", ".pgm"))
                   and n != "cmyk.jpg")  # ANY_DATA: a CMYK JPEG peeks as 4 channels (DALI's), decodes to RGB

    def graph():
        e = fn.external_source(source=lambda: _encoded(names), batch=True)
        return fn.peek_image_shape(e, image_type=output_type), fn.decoders.image(e, output_type=output_type)

    peeked, decoded = _run(graph, len(names))
    for i, name in enumerate(names):
        assert peeked.at(i).tolist() == list(decoded.at(i).shape), name


def test_peek_of_corrupt_bytes_names_the_operator():
    def graph():
        return fn.peek_image_shape(fn.external_source(source=lambda: [np.frombuffer(b"\xff\xd8\xff\x00junk", np.uint8)],
                                                      batch=True))

    with pytest.raises(sluice.SluiceError, match="peek_image_shape"):
        _run(graph, 1)


def test_peek_rejects_a_type_it_cannot_give():
    with pytest.raises(sluice.ArgumentError, match="dtype"):
        fn.peek_image_shape(fn.external_source(source=lambda: [], batch=True), dtype=types.UINT8)


SHAPES = [np.array(s, np.int64) for s in ([480, 640, 3], [100, 50], [1000, 2000, 3], [7, 9])]


def _windows(threads=1, seed=5, **kwargs):
    def graph():
        return fn.random_crop_generator(fn.external_source(source=lambda: SHAPES, batch=True), **kwargs)

    anchor, shape = _run(graph, len(SHAPES), threads=threads, seed=seed)
    return [a.tolist() for a in anchor.as_array()], [s.tolist() for s in shape.as_array()], anchor.at(0).dtype


def test_random_crop_generator_windows_lie_inside_and_are_int32_hw():
    anchors, shapes, dtype = _windows()
    assert dtype == np.int32
    for (y, x), (h, w), full in zip(anchors, shapes, SHAPES):
        assert h >= 1 and w >= 1 and 0 <= y <= full[0] - h and 0 <= x <= full[1] - w


def test_random_crop_generator_follows_random_area_and_ratio():
    anchors, shapes, _ = _windows(random_area=[0.25, 0.25], random_aspect_ratio=[1.0, 1.0])
    for (h, w), full in zip(shapes, SHAPES):
        area = 0.25 * full[0] * full[1]
        if np.sqrt(area) <= min(full[0], full[1]):
            assert abs(h * w - area) / area < 0.05 and h == w


def test_random_crop_generator_is_the_same_for_any_thread_count_and_changes_with_the_seed():
    assert _windows(threads=1) == _windows(threads=3)
    assert _windows(seed=5) != _windows(seed=6)


def test_random_crop_generator_slices_what_it_says():
    def graph():
        shapes = fn.external_source(source=lambda: [np.array([375, 500, 3], np.int64)], batch=True)
        anchor, shape = fn.random_crop_generator(shapes)
        image = fn.decoders.image(fn.external_source(source=lambda: _encoded(["photo_500x375.jpg"]), batch=True))
        return anchor, shape, fn.slice(image, anchor, shape, axes=[0, 1]), image

    anchor, shape, crop, image = _run(graph, 1)
    (y, x), (h, w) = anchor.at(0), shape.at(0)
    np.testing.assert_array_equal(crop.at(0), image.at(0)[y:y + h, x:x + w])


def test_random_crop_generator_bad_input_and_arguments():
    def graph(shape):
        return fn.random_crop_generator(fn.external_source(source=lambda: [shape], batch=True))

    with pytest.raises(sluice.SluiceError, match="2 or 3 extents"):
        _run(lambda: graph(np.array([1, 2, 3, 4], np.int64)), 1)
    with pytest.raises(sluice.SluiceError, match="random_crop_generator"):
        _run(lambda: graph(np.array([0, 5], np.int64)), 1)
    with pytest.raises(sluice.ArgumentError, match="random_area"):
        fn.random_crop_generator(fn.external_source(source=lambda: [], batch=True), random_area=[0.5, 0.1])
