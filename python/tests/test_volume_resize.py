"""fn.resize on DHWC volumes (resize_z, a size of 3, roi (z, y, x), mirroring, DALI's size rules over
three extents) against scipy.ndimage.zoom, an independent implementation of separable 3-D linear
interpolation.

Reference: zoom(order=1, grid_mode=True, mode="nearest") samples the input at
(i + 0.5) * in / out - 0.5 with the edge value repeated, which is the linear filter without
antialiasing (antialias=False; downscaling with antialias widens the filter as in Pillow and
differs from zoom by design). Tolerances: float32 within 1e-5 (float accumulation), uint8 within
1 level (the float result rounded once).
"""
import numpy as np
import pytest

import sluice
from sluice import fn

ndi = pytest.importorskip("scipy.ndimage")
RNG = np.random.default_rng(263)


def run(build, samples, threads=2, extra=None):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=threads, seed=5)
    with pipe:
        x = fn.external_source(source=lambda: list(samples), layout="DHWC")
        ex = [fn.external_source(source=lambda e=e: list(e)) for e in (extra or [])]
        outs = build(x, *ex)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res], [o.layout() for o in res]


def zoom_to(v, size):
    """scipy's linear zoom of a DHWC volume (channels untouched) to size (d, h, w)."""
    factors = [o / i for o, i in zip(size, v.shape[:3])] + [1]
    out = ndi.zoom(v.astype(np.float64), factors, order=1, grid_mode=True, mode="nearest")
    assert out.shape[:3] == tuple(size)
    return out


def vols(dtype=np.float32):
    shapes = [(6, 8, 10, 2), (5, 7, 9, 1), (9, 4, 6, 3)]
    if dtype == np.uint8:
        return [RNG.integers(0, 256, s).astype(np.uint8) for s in shapes]
    return [RNG.normal(size=s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("size", [(12, 11, 7), (3, 16, 20), (6, 5, 4), (2, 2, 2)])
def test_linear_matches_scipy_zoom_float(size):
    samples = vols()
    (out,), layouts = run(lambda x: fn.resize(x, size=size, antialias=False), samples)
    assert layouts == ["DHWC"]
    for v, o in zip(samples, out):
        assert o.shape == tuple(size) + v.shape[3:] and o.dtype == np.float32
        np.testing.assert_allclose(o, zoom_to(v, size), atol=1e-5)


def test_linear_matches_scipy_zoom_uint8_and_per_sample_size():
    samples = vols(np.uint8)
    sizes = [np.array(s, np.float32) for s in [(12, 3, 20), (4, 14, 9), (9, 4, 6)]]
    (out, as_float), _ = run(lambda x, s: (fn.resize(x, size=s, antialias=False),
                                           fn.resize(x, size=s, antialias=False, dtype=sluice.types.FLOAT)),
                             samples, extra=[sizes])
    for v, o, f, s in zip(samples, out, as_float, sizes):
        ref = zoom_to(v, tuple(int(t) for t in s))
        assert o.dtype == np.uint8
        assert np.abs(o.astype(np.float64) - ref).max() <= 1.0
        np.testing.assert_allclose(f, ref, atol=2e-4)


def test_resize_z_with_x_y_mirroring_and_derived_extents():
    samples = vols()
    (flip, derived, stretch), _ = run(lambda x: (
        fn.resize(x, resize_x=12, resize_y=9, resize_z=-7, antialias=False),
        fn.resize(x, resize_z=12, antialias=False),   # default mode: h and w scale like d
        fn.resize(x, resize_z=3, mode="stretch", antialias=False)), samples)
    for v, a, b, c in zip(samples, flip, derived, stretch):
        np.testing.assert_allclose(a, zoom_to(v[::-1], (7, 9, 12)), atol=1e-5)
        s = 12 / v.shape[0]
        want = (12, max(1, round(v.shape[1] * s)), max(1, round(v.shape[2] * s)))
        assert b.shape[:3] == want
        assert c.shape[:3] == (3,) + v.shape[1:3]
        np.testing.assert_allclose(c, zoom_to(v, c.shape[:3]), atol=1e-5)


def test_roi_in_depth_height_width():
    samples = [RNG.normal(size=(8, 8, 8, 1)).astype(np.float32)]
    # roi_start/roi_end (z, y, x): the region 2..6 of every axis, magnified 2x, equals zooming the
    # 4^3 sub-volume when its edges are interior (the linear taps reach one voxel outside it).
    (out,), _ = run(lambda x: fn.resize(x, size=(8, 8, 8), roi_start=(2, 2, 2), roi_end=(6, 6, 6),
                                        antialias=False), samples)
    v = samples[0].astype(np.float64)
    # Sample positions 2 + (i + 0.5) / 2 - 0.5 in input voxel centres, linear interpolation.
    pos = 2 + (np.arange(8) + 0.5) / 2 - 0.5
    grid = np.meshgrid(pos, pos, pos, indexing="ij")
    ref = ndi.map_coordinates(v[..., 0], grid, order=1, mode="nearest")
    np.testing.assert_allclose(out[0][..., 0], ref, atol=1e-5)


def test_size_rules_over_three_extents():
    samples = [np.zeros((10, 20, 40, 1), np.uint8)]
    (shorter, longer, capped), _ = run(lambda x: (fn.resize(x, resize_shorter=5), fn.resize(x, resize_longer=20),
                                                  fn.resize(x, size=30, max_size=(20, 100, 100))), samples)
    assert shorter[0].shape == (5, 10, 20, 1)
    assert longer[0].shape == (5, 10, 20, 1)
    assert capped[0].shape == (20, 30, 30, 1)  # stretch of size 30 each, depth capped at 20


def test_antialiased_shrink_of_a_constant_is_exact_and_threads_agree():
    samples = [np.full((9, 10, 11, 2), 77, np.uint8), RNG.integers(0, 256, (12, 10, 8, 3)).astype(np.uint8)]
    build = lambda x: fn.resize(x, size=(4, 5, 3), interp_type=sluice.types.INTERP_CUBIC)
    (a,), _ = run(build, samples, threads=1)
    (b,), _ = run(build, samples, threads=3)
    np.testing.assert_array_equal(a[0], 77)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_volume_arguments_are_checked():
    samples = vols()
    with pytest.raises(Exception, match="size"):
        run(lambda x: fn.resize(x, size=(3, 4)), samples)
    with pytest.raises(Exception, match="roi_start"):
        run(lambda x: fn.resize(x, size=4, roi_start=(1, 1), roi_end=(2, 2)), samples)
    images = [np.zeros((4, 4, 3), np.uint8)]
    with pytest.raises(Exception, match="resize_z"):
        pipe = sluice.Pipeline(batch_size=1, num_threads=1)
        with pipe:
            pipe.set_outputs(fn.resize(fn.external_source(source=lambda: images, layout="HWC"), resize_z=3, resize_x=2))
        pipe.run()


@pytest.mark.parametrize("fuse", [True, False])
def test_resize_then_crop_mirror_normalize_fused_or_not(fuse):
    """resize -> crop_mirror_normalize on volumes: the fused operator (the default) equals the chain."""
    samples = vols(np.uint8)

    def chain(fuse_operators):
        pipe = sluice.Pipeline(batch_size=len(samples), num_threads=2, seed=5, fuse_operators=fuse_operators)
        with pipe:
            x = fn.external_source(source=lambda: list(samples), layout="DHWC")
            pipe.set_outputs(fn.crop_mirror_normalize(fn.resize(x, size=(8, 8, 8)), crop=(4, 6, 5), crop_pos_z=0.2,
                                                      mean=[10.0], std=[3.0], mirror=1))
        (out,) = pipe.run()
        return out.layout(), [np.array(out.at(i)) for i in range(len(samples))]

    layout, got = chain(fuse)
    _, plain = chain(False)
    (resized,), _ = run(lambda x: fn.resize(x, size=(8, 8, 8)), samples)
    assert layout == "CDHW"
    for g, p, r in zip(got, plain, resized):
        np.testing.assert_array_equal(g, p)
        z, y, x = (int(np.floor(float(np.float32(pos)) * (8 - e) + 0.5)) for pos, e in ((0.2, 4), (0.5, 6), (0.5, 5)))
        ref = (r[z:z + 4, y:y + 6, x:x + 5][:, :, ::-1].astype(np.float32) - 10) / 3
        np.testing.assert_allclose(g, np.moveaxis(ref, 3, 0), rtol=1e-6, atol=1e-5)
