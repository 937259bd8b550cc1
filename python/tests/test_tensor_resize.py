"""fn.tensor_resize (and DALI's deprecated fn.experimental.tensor_resize) against:

- fn.resize on the repository's photographs: the same pixels, bit for bit, when an HWC image is
  resized along (H, W) (tensor_resize maps onto resize's kernel);
- scipy.ndimage.zoom for axes that are not an image's: a 1-D signal, the time axis of a
  spectrogram, a 3-D volume without channels. zoom(order=1, grid_mode=True, mode="nearest")
  samples (i + 0.5) * in / out - 0.5 with the edge repeated: the linear filter without
  antialiasing. Tolerances: float32 within 1e-5 (float accumulation), uint8 within 1 level;
- the values DALI's own tests hold for tensor_resize (ONNX's reference: nearest, linear and
  `alignment`), exactly up to float32 rounding.
"""
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

Image = pytest.importorskip("PIL.Image")
ndi = pytest.importorskip("scipy.ndimage")

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "s444.jpg", "progressive.jpg"]
RNG = np.random.default_rng(26)


def photos():
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run(samples, build, layout="", extra=()):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=2, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(samples), layout=layout)
        ex = [fn.external_source(source=lambda e=e: [np.asarray(v) for v in e]) for e in extra]
        outs = build(src, *ex)
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res], [o.layout() for o in res]


def zoom_to(x, shape):
    factors = [o / i for o, i in zip(shape, x.shape)]
    out = ndi.zoom(x.astype(np.float64), factors, order=1, grid_mode=True, mode="nearest")
    assert out.shape == tuple(shape)
    return out


@pytest.mark.parametrize("interp", [types.INTERP_LINEAR, types.INTERP_CUBIC, types.INTERP_NN, types.INTERP_GAUSSIAN])
@pytest.mark.parametrize("kwargs, size", [
    (dict(sizes=[200, 300], axes=[0, 1]), (200, 300)),
    (dict(sizes=[641, 123], axis_names="HW"), (641, 123)),
    (dict(sizes=[150, 0.0, 3]), (150, 0)),
])
def test_hwc_photographs_equal_resize(interp, kwargs, size):
    imgs = photos()
    (tr, rs), layouts = run(imgs, lambda x: (fn.tensor_resize(x, interp_type=interp, **kwargs),
                                             fn.resize(x, size=size, interp_type=interp)), layout="HWC")
    assert layouts[0] == "HWC"
    for img, u, v in zip(imgs, tr, rs):
        if size[1] == 0:
            # A derived extent: DALI's default mode scales it by the geometric mean of the given
            # axes' scales, the channels' (3 -> 3) included, and keeps that scale (subpixel_scale),
            # where resize derives the width from the height alone.
            w = img.shape[1] * np.sqrt(150 / img.shape[0])
            assert u.shape == (150, int(np.floor(w + 0.5)), 3)
            continue
        assert u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def test_signal_against_scipy_zoom():
    sig = [RNG.normal(size=n).astype(np.float32) for n in (100, 37, 256)]
    sizes = [np.array([s], np.float32) for s in (250, 11, 256 * 3)]
    (out,), _ = run(sig, lambda x, s: fn.tensor_resize(x, sizes=s, antialias=False), extra=[sizes])
    for x, o, s in zip(sig, out, sizes):
        np.testing.assert_allclose(o, zoom_to(x, (int(s[0]),)), atol=1e-5)


def test_spectrogram_time_axis_and_channels_against_scipy_zoom():
    spec = [RNG.random((40, 64)).astype(np.float32), RNG.random((25, 64)).astype(np.float32)]
    (out, scaled), _ = run(spec, lambda x: (fn.tensor_resize(x, axes=[0], sizes=[100], antialias=False),
                                            fn.tensor_resize(x, axes=[-2], scales=[1.5], antialias=False)))
    for x, o, s in zip(spec, out, scaled):
        np.testing.assert_allclose(o, zoom_to(x, (100, 64)), atol=1e-5)
        n = int(np.floor(x.shape[0] * 1.5 + 0.5))
        # scales keep the exact scale: for a fractional n * 1.5 the region moves (subpixel_scale).
        if x.shape[0] * 1.5 == n:
            np.testing.assert_allclose(s, zoom_to(x, (n, 64)), atol=1e-5)
        assert s.shape == (n, 64)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
def test_volume_against_scipy_zoom(dtype):
    if dtype == np.uint8:
        vols = [RNG.integers(0, 256, (12, 10, 9)).astype(np.uint8), RNG.integers(0, 256, (5, 6, 7)).astype(np.uint8)]
    else:
        vols = [RNG.normal(size=(12, 10, 9)).astype(np.float32), RNG.normal(size=(5, 6, 7)).astype(np.float32)]
    size = (7, 15, 4)
    (out,), _ = run(vols, lambda x: fn.tensor_resize(x, sizes=size, antialias=False))
    for v, o in zip(vols, out):
        assert o.shape == size and o.dtype == dtype
        ref = zoom_to(v, size)
        if dtype == np.uint8:
            assert np.abs(o.astype(np.float64) - ref).max() <= 1.0
        else:
            np.testing.assert_allclose(o, ref, atol=1e-5)


# DALI's test_tensor_resize.py (expected values from ONNX's reference implementation).
D2x2 = np.array([[[[1, 2], [3, 4]]]], np.float32)
D2x4 = np.array([[[[1, 2, 3, 4], [5, 6, 7, 8]]]], np.float32)


@pytest.mark.parametrize("data, kwargs, expected", [
    (D2x2, dict(scales=[1, 1, 2, 3], interp_type=types.INTERP_NN),
     [[1, 1, 1, 2, 2, 2], [1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4], [3, 3, 3, 4, 4, 4]]),
    (D2x4, dict(scales=[1, 1, 0.6, 0.6], interp_type=types.INTERP_NN), [[1, 3]]),
    # Row 3 samples source (3 + 0.5) * 2 / 7 = 1.0 exactly: DALI's float32 position takes row 1 (issue 40;
    # Pillow's accumulated double took row 0).
    (D2x2, dict(sizes=[1, 1, 7, 8], interp_type=types.INTERP_NN),
     [[1, 1, 1, 1, 2, 2, 2, 2]] * 3 + [[3, 3, 3, 3, 4, 4, 4, 4]] * 4),
    (D2x2, dict(scales=[1, 1, 2, 2], antialias=False),
     [[1, 1.25, 1.75, 2], [1.5, 1.75, 2.25, 2.5], [2.5, 2.75, 3.25, 3.5], [3, 3.25, 3.75, 4]]),
    (D2x4, dict(scales=[1, 1, 0.6, 0.6], antialias=False), [[2.6666665, 4.3333331]]),
    (D2x4, dict(scales=[1, 1, 0.6, 0.6], antialias=False, alignment=0.5), [[3.6666665, 5.3333331]]),
    (D2x4, dict(scales=[1, 1, 0.6, 0.6], antialias=False, alignment=1), [[4.6666665, 6.3333331]]),
])
def test_dalis_reference_values(data, kwargs, expected):
    kwargs.setdefault("alignment", 0)
    (out,), _ = run([data], lambda x: fn.tensor_resize(x, **kwargs))
    np.testing.assert_allclose(out[0][0, 0], np.array(expected, np.float32), rtol=1e-6, atol=1e-6)


def test_experimental_name_is_an_alias():
    assert fn.experimental.tensor_resize is fn.tensor_resize
    assert sluice.ops.experimental.TensorResize is sluice.ops.TensorResize


def test_per_sample_sizes_roi_and_dtype():
    data = [np.arange(24, dtype=np.uint8).reshape(4, 6), np.arange(30, dtype=np.uint8).reshape(5, 6)]
    sizes = [np.array([8, 3], np.float32), np.array([2, 12], np.float32)]
    (out, flipped), _ = run(data, lambda x, s: (
        fn.tensor_resize(x, sizes=s, interp_type=types.INTERP_NN, dtype=types.FLOAT),
        fn.tensor_resize(x, axes=[1], sizes=[6], roi_start=[1.0], roi_end=[0.0], roi_relative=True)), extra=[sizes])
    for d, o, f, s in zip(data, out, flipped, sizes):
        assert o.dtype == np.float32 and o.shape == tuple(int(v) for v in s)
        ys = np.floor((np.arange(o.shape[0]) + 0.5) * d.shape[0] / o.shape[0]).astype(int)
        xs = np.floor((np.arange(o.shape[1]) + 0.5) * d.shape[1] / o.shape[1]).astype(int)
        np.testing.assert_array_equal(o, d[ys][:, xs].astype(np.float32))
        np.testing.assert_array_equal(f, d[:, ::-1])
