"""Channel-first images and volumes (DALI's CHW and CDHW layouts) through resize and
crop_mirror_normalize: each channel is resized (normalized) on its own as a 1-channel image or
volume, so the result must equal the channel-last (HWC / DHWC) result transposed (up to the
kernels' accumulation order, see assert_same_resize), and
each channel must match scipy.ndimage.zoom (order=1 for the linear filter without antialiasing,
order=0 for nearest) within the tolerances of test_volume_resize.py: float32 1e-5, uint8 1 level.
"""
import numpy as np
import pytest

import sluice
from sluice import fn, types

ndi = pytest.importorskip("scipy.ndimage")
RNG = np.random.default_rng(2611)


def run(build, samples, layout, threads=2, extra=None, fuse=True):
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=threads, seed=5, fuse_operators=fuse)
    with pipe:
        x = fn.external_source(source=lambda: list(samples), layout=layout)
        ex = [fn.external_source(source=lambda e=e: list(e)) for e in (extra or [])]
        outs = build(x, *ex)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res], [o.layout() for o in res]


def first(a):
    """Channel-last to channel-first (the last axis moved to the front), contiguous."""
    return np.ascontiguousarray(np.moveaxis(a, -1, 0))


def assert_same_resize(got, want):
    """A channel resized alone equals it resized among others up to the kernels' accumulation order
    (the 3-channel rows have their own SIMD path): float32 within 1e-5, uint8 within 1 level on a
    few pixels (a float sum on the other side of a .5 after rounding)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype == np.uint8:
        diff = np.abs(got.astype(np.int16) - want.astype(np.int16))
        assert diff.max() <= 1 and np.count_nonzero(diff) <= max(1, diff.size // 200)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def samples(shapes, dtype):
    if dtype == np.uint8:
        return [RNG.integers(0, 256, s).astype(np.uint8) for s in shapes]
    return [RNG.normal(size=s).astype(np.float32) for s in shapes]


VOLUMES = [(6, 8, 10, 2), (5, 7, 9, 1), (9, 4, 6, 3), (4, 5, 6, 4)]
IMAGES = [(20, 30, 3), (17, 9, 1), (12, 16, 4), (8, 11, 2)]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("kwargs", [
    dict(size=(7, 12, 5)),                                               # linear, antialiased shrink in w
    dict(size=(12, 3, 13), interp_type=types.INTERP_CUBIC),
    dict(resize_z=-5, resize_x=8, interp_type=types.INTERP_NN),          # mirrored depth
    dict(size=(5, 5, 5), roi_start=(1, 2, 0.5), roi_end=(4, 0.5, 5), interp_type=types.INTERP_LANCZOS3),
    dict(resize_shorter=3, dtype=types.FLOAT),
])
def test_cdhw_resize_equals_dhwc_transposed(dtype, kwargs):
    vols = samples(VOLUMES, dtype)
    (cl,), lcl = run(lambda x: fn.resize(x, **kwargs), vols, "DHWC")
    (cf,), lcf = run(lambda x: fn.resize(x, **kwargs), [first(v) for v in vols], "CDHW")
    assert (lcl, lcf) == (["DHWC"], ["CDHW"])
    for a, b in zip(cl, cf):
        assert_same_resize(b, first(a))


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
@pytest.mark.parametrize("kwargs", [
    dict(size=(11, 17)),
    dict(resize_x=-40, resize_y=9, interp_type=types.INTERP_NN),
    dict(size=(13, 13), roi_start=(0.2, 0.1), roi_end=(0.9, 0.8), roi_relative=True, interp_type=types.INTERP_CUBIC),
])
def test_chw_resize_equals_hwc_transposed(dtype, kwargs):
    ims = samples(IMAGES, dtype)
    (cl,), _ = run(lambda x: fn.resize(x, **kwargs), ims, "HWC")
    (cf,), lcf = run(lambda x: fn.resize(x, **kwargs), [first(v) for v in ims], "CHW")
    assert lcf == ["CHW"]
    for a, b in zip(cl, cf):
        assert_same_resize(b, first(a))


def zoom(v, size, order):
    """scipy's zoom of one channel (a 2-D or 3-D array) to `size`, sampling at pixel centres."""
    factors = [o / i for o, i in zip(size, v.shape)]
    out = ndi.zoom(v.astype(np.float64), factors, order=order, grid_mode=True, mode="nearest")
    assert out.shape == tuple(size)
    return out


@pytest.mark.parametrize("size", [(12, 11, 7), (3, 16, 20), (2, 2, 2)])
def test_cdhw_linear_matches_scipy_zoom_per_channel(size):
    vols = [first(v) for v in samples(VOLUMES, np.float32)] + [RNG.normal(size=(6, 5, 4, 3)).astype(np.float32)]
    as_u8 = [np.clip(np.round(v * 40 + 128), 0, 255).astype(np.uint8) for v in vols]
    (out,), _ = run(lambda x: fn.resize(x, size=size, antialias=False), vols, "CDHW")
    (out_u8,), _ = run(lambda x: fn.resize(x, size=size, antialias=False), as_u8, "CDHW")
    for v, o, vu, u in zip(vols, out, as_u8, out_u8):
        assert o.shape == (v.shape[0],) + tuple(size)  # the last has 6 channels: more than DHWC's 4
        for c in range(v.shape[0]):
            np.testing.assert_allclose(o[c], zoom(v[c], size, 1), atol=1e-5)
            assert np.abs(u[c].astype(np.float64) - zoom(vu[c], size, 1)).max() <= 1.0


def nearest_index(n_in, n_out):
    """DALI's nearest source index floor((i + 0.5) * in / out) in exact arithmetic, and where that
    product is an integer: there DALI (and Sluice, resize's notes) may take the pixel before, and
    scipy's order-0 rounding of its float coordinate goes either way."""
    num = (2 * np.arange(n_out) + 1) * n_in
    return num // (2 * n_out), num % (2 * n_out) == 0


@pytest.mark.parametrize("layout,size", [("CDHW", (12, 3, 13)), ("CDHW", (4, 9, 5)), ("CHW", (31, 7)), ("CHW", (5, 22))])
def test_nearest_matches_scipy_zoom_order0_per_channel(layout, size):
    shapes = [first(np.empty(s)).shape for s in (VOLUMES if layout == "CDHW" else IMAGES)]
    data = [RNG.integers(0, 256, s).astype(np.uint8) for s in shapes]
    (out,), _ = run(lambda x: fn.resize(x, size=size, interp_type=types.INTERP_NN), data, layout)
    checked = 0
    for v, o in zip(data, out):
        idx, ties = zip(*(nearest_index(n, m) for n, m in zip(v.shape[1:], size)))
        clear = np.ones(size, bool)  # no axis at a tie
        for ax, t in enumerate(ties):
            clear &= ~t.reshape([-1 if a == ax else 1 for a in range(len(size))])
        checked += int(clear.sum())
        for c in range(v.shape[0]):
            np.testing.assert_array_equal(o[c][clear], v[c][np.ix_(*idx)][clear])
            np.testing.assert_array_equal(o[c][clear], zoom(v[c], size, 0)[clear])
    assert checked > 0.3 * len(data) * np.prod(size)


def test_sequences_of_channel_first_volumes_frame_by_frame():
    seq = RNG.integers(0, 256, (3, 2, 5, 6, 7)).astype(np.uint8)  # FCDHW
    (out,), layouts = run(lambda x: fn.resize(x, size=(4, 3, 9)), [seq], "FCDHW")
    (frames,), _ = run(lambda x: fn.resize(x, size=(4, 3, 9)), list(seq), "CDHW")
    assert layouts == ["FCDHW"] and out[0].shape == (3, 2, 4, 3, 9)
    for f in range(3):
        np.testing.assert_array_equal(out[0][f], frames[f])


def test_channel_first_resize_errors_name_the_argument():
    vols = [first(v) for v in samples(VOLUMES[:1], np.float32)]
    with pytest.raises(Exception, match="size"):
        run(lambda x: fn.resize(x, size=(3, 4)), vols, "CDHW")
    ims = [first(v) for v in samples(IMAGES[:1], np.uint8)]
    with pytest.raises(Exception, match="resize_z"):
        run(lambda x: fn.resize(x, resize_z=3, resize_x=4), ims, "CHW")


CMN = dict(mean=[100.0, 50.0, 10.0], std=[20.0, 40.0, 5.0], out_of_bounds_policy="pad", fill_values=(-1.0, -2.0, -3.0))


@pytest.mark.parametrize("volume", [False, True])
@pytest.mark.parametrize("out_first", [True, False])
@pytest.mark.parametrize("dtype,pad", [(types.FLOAT, False), (types.UINT8, True), (types.FLOAT16, True)])
def test_crop_mirror_normalize_channel_first_input(volume, out_first, dtype, pad):
    shapes = [(6, 8, 10, 3), (9, 4, 6, 3)] if volume else [(20, 30, 3), (9, 12, 3)]
    data = samples(shapes, np.uint8)
    crop = (7, 5, 8) if volume else (10, 14)  # past the edge of the second sample: padded with fill_values
    out_layout = ("CDHW" if volume else "CHW") if out_first else ("DHWC" if volume else "HWC")
    mirror = [np.int32(1), np.int32(0)]
    build = lambda x, m: fn.crop_mirror_normalize(x, crop=crop, crop_pos_x=0.3, crop_pos_z=0.8, mirror=m, dtype=dtype,
                                                  output_layout=out_layout, pad_output=pad, scale=0.5, shift=3.0,
                                                  **CMN)
    (cl,), lcl = run(build, data, "DHWC" if volume else "HWC", extra=[mirror])
    (cf,), lcf = run(build, [first(v) for v in data], "CDHW" if volume else "CHW", extra=[mirror])
    assert lcf == lcl == [out_layout]
    for a, b in zip(cl, cf):
        assert b.dtype == a.dtype and b.shape == a.shape
        if dtype == types.FLOAT:
            # The 3-channel uint8 rows of the interleaved kernel fuse the multiply-add; 1-channel rows
            # round the product first: within one float32 rounding of each other.
            np.testing.assert_allclose(b, a, rtol=2e-7, atol=1e-6)
        else:
            assert np.abs(b.astype(np.float64) - a.astype(np.float64)).max() <= (1 if dtype == types.UINT8 else 2e-3)


def test_crop_mirror_normalize_chw_input_against_numpy():
    data = [first(v) for v in samples([(9, 11, 2), (6, 13, 2)], np.float32)]
    mean, std = [0.5, -1.0], [2.0, 0.25]
    (out,), layouts = run(lambda x: fn.crop_mirror_normalize(x, crop=(5, 6), crop_pos_y=0.0, crop_pos_x=1.0, mirror=1,
                                                             mean=mean, std=std), data, "CHW")
    assert layouts == ["CHW"]
    for v, o in zip(data, out):
        W = v.shape[2]
        win = v[:, :5, W - 6:][:, :, ::-1]
        ref = (win - np.float32(mean)[:, None, None]) / np.float32(std)[:, None, None]
        np.testing.assert_allclose(o, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("layout", ["CHW", "CDHW"])
@pytest.mark.parametrize("out_layout", ["CHW", "HWC"])
def test_fused_resize_crop_mirror_normalize_channel_first(layout, out_layout):
    shapes = [(6, 8, 10, 3), (9, 4, 6, 3)] if layout == "CDHW" else [(20, 30, 3), (9, 12, 3)]
    data = [first(v) for v in samples(shapes, np.uint8)]
    size, crop = ((8, 8, 8), (4, 6, 5)) if layout == "CDHW" else ((16, 16), (12, 10))

    def chain(x):
        return fn.crop_mirror_normalize(fn.resize(x, size=size), crop=crop, crop_pos_z=0.2, mean=[10.0, 20.0, 30.0],
                                        std=[3.0], mirror=1, output_layout=out_layout)

    (fused,), lf = run(chain, data, layout, fuse=True)
    (plain,), lp = run(chain, data, layout, fuse=False)
    assert lf == lp
    for a, b in zip(fused, plain):
        np.testing.assert_array_equal(a, b)
