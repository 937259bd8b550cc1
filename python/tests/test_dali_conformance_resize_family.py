"""DALI's call forms for resize_crop_mirror (and fast_resize_crop_mirror) and tensor_resize (and
experimental.tensor_resize), one test per documented argument, in the style of
test_dali_conformance.py: each form is accepted and, where it means more than "accepted", the
output shows DALI's meaning. docs/dali-compatibility.md says what differs.
"""
import numpy as np
import pytest

import sluice
from sluice import fn, ops, types

H, W = 30, 40  # the test image


def image():
    y, x = np.mgrid[0:H, 0:W]
    return np.stack([x * 6, y * 8, (x + y) * 3], axis=-1).astype(np.uint8)


def run(build, samples=None, layout="HWC", extra=()):
    samples = samples if samples is not None else [image()]
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=1, seed=3)
    with pipe:
        src = fn.external_source(source=lambda: list(samples), layout=layout)
        ex = [fn.external_source(source=lambda e=e: [np.asarray(v) for v in e]) for e in extra]
        out = build(src, *ex)
        pipe.set_outputs(*(out if isinstance(out, (list, tuple)) else [out]))
    outs = pipe.run()
    return [np.asarray(outs[0].at(i)) for i in range(len(samples))]


def rcm(**kwargs):
    return run(lambda x: fn.resize_crop_mirror(x, **kwargs))[0]


def chain(resize_kw, crop_kw=None, horizontal=0, vertical=0):
    return run(lambda x: fn.flip(fn.crop(fn.resize(x, **resize_kw), **(crop_kw or {})),
                                 horizontal=horizontal, vertical=vertical))[0]


# --- resize_crop_mirror: resize's size arguments ------------------------------------------------
@pytest.mark.parametrize("kwargs, expected", [
    ({"resize_x": 20, "resize_y": 10}, (10, 20)),
    ({"resize_x": 20}, (15, 20)),
    ({"resize_y": 15}, (15, 20)),
    ({"size": [12, 16]}, (12, 16)),
    ({"size": 15, "mode": "not_smaller"}, (15, 20)),
    ({"size": 15, "mode": "not_larger"}, (11, 15)),
    ({"resize_x": 20, "mode": "stretch"}, (30, 20)),
    ({"resize_shorter": 15}, (15, 20)),
    ({"resize_longer": 20}, (15, 20)),
    ({"resize_shorter": 15, "max_size": 18}, (14, 18)),
    # default mode: the derived height 15 is capped alone, the width keeps 20 (AdjustOutputSize)
    ({"resize_x": 20, "max_size": [12, 100]}, (12, 20)),
])
def test_rcm_size_forms_without_crop_are_resize(kwargs, expected):
    out = rcm(**kwargs)
    assert out.shape[:2] == expected
    np.testing.assert_array_equal(out, chain(kwargs))


@pytest.mark.parametrize("kwargs", [
    {"crop": [8, 12]}, {"crop": 8}, {"crop_h": 8, "crop_w": 12}, {"crop": [8, 12], "crop_pos_x": 0.0},
    {"crop": [8, 12], "crop_pos_y": 1.0}, {"crop": [9, 13], "crop_pos_x": 0.3, "rounding": "truncate"},
])
def test_rcm_crop_arguments_are_crops(kwargs):
    resize_kw = {"resize_x": 20, "resize_y": 16}   # scale 2 in each axis: the region is exact
    np.testing.assert_array_equal(rcm(**resize_kw, **kwargs), chain(resize_kw, kwargs))


@pytest.mark.parametrize("mirror, h, v", [(0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1), (True, 1, 0)])
def test_rcm_mirror_mask(mirror, h, v):
    resize_kw = {"resize_x": 20, "resize_y": 15}
    np.testing.assert_array_equal(rcm(mirror=mirror, crop=10, **resize_kw),
                                  chain(resize_kw, {"crop": 10}, horizontal=h, vertical=v))


def test_rcm_mirror_per_sample():
    outs = run(lambda x, m: fn.resize_crop_mirror(x, resize_x=20, crop=10, mirror=m),
               samples=[image(), image()], extra=[[np.int32(0), np.int32(1)]])
    np.testing.assert_array_equal(outs[1], outs[0][:, ::-1])


@pytest.mark.parametrize("arg, value", [
    ("interp_type", types.INTERP_CUBIC), ("interp_type", 2), ("interp_type", "CUBIC"),
    ("min_filter", types.INTERP_NN), ("mag_filter", types.INTERP_LANCZOS3), ("antialias", False),
    ("roi_start", [2, 4]), ("roi_relative", False), ("subpixel_scale", False), ("minibatch_size", 8),
    ("temp_buffer_hint", 1024),
])
def test_rcm_resampling_and_region_arguments_are_resizes(arg, value):
    kw = {"resize_x": 20, "resize_y": 15, arg: value}
    if arg == "roi_start":   # a 24 x 32 region to 12 x 16: scale 2, so the crop's region is exact
        kw.update(roi_end=[26, 36], resize_x=16, resize_y=12)
    np.testing.assert_array_equal(rcm(crop=10, **kw), chain(kw, {"crop": 10}))


def test_rcm_dtype_float():
    out = rcm(resize_x=20, crop=10, dtype=types.FLOAT)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, chain({"resize_x": 20, "dtype": types.FLOAT}, {"crop": 10}), atol=1e-3)


def test_rcm_volumes_resize_z_crop_d_crop_pos_z_and_depthwise_mirror():
    vol = np.arange(8 * 8 * 8, dtype=np.uint8).reshape(8, 8, 8, 1)
    out = run(lambda x: fn.resize_crop_mirror(x, resize_x=4, resize_y=4, resize_z=4, crop=[2, 4, 4], crop_pos_z=1.0,
                                              mirror=4), samples=[vol], layout="DHWC")[0]
    full = run(lambda x: fn.resize(x, size=[4, 4, 4]), samples=[vol], layout="DHWC")[0]
    np.testing.assert_array_equal(out, full[2:4][::-1])
    out = run(lambda x: fn.resize_crop_mirror(x, size=4, crop_d=2, crop_h=4, crop_w=4), samples=[vol], layout="DHWC")[0]
    np.testing.assert_array_equal(out, full[1:3])


def test_rcm_legacy_name_and_ops_spelling():
    np.testing.assert_array_equal(run(lambda x: fn.fast_resize_crop_mirror(x, resize_x=20, crop=10))[0],
                                  rcm(resize_x=20, crop=10, antialias=False))
    op = ops.ResizeCropMirror(resize_x=20, crop=10)
    np.testing.assert_array_equal(run(lambda x: op(x))[0], rcm(resize_x=20, crop=10))
    assert ops.FastResizeCropMirror is not None


# --- tensor_resize -------------------------------------------------------------------------------
def tr(data, **kwargs):
    return run(lambda x: fn.tensor_resize(x, **kwargs), samples=[data], layout="")[0]


DATA = np.arange(4 * 6 * 2, dtype=np.float32).reshape(4, 6, 2)


@pytest.mark.parametrize("kwargs, shape", [
    ({"sizes": [8, 3, 2]}, (8, 3, 2)),
    ({"sizes": [8, 3], "axes": [0, 1]}, (8, 3, 2)),
    ({"sizes": [3], "axes": [-2]}, (4, 3, 2)),                       # negative axes count from the back
    ({"sizes": 5, "axes": [0, 1]}, (5, 5, 2)),                        # one value for every listed axis
    ({"scales": [2, 0.5], "axes": [0, 1]}, (8, 3, 2)),
    ({"scales": 1.5, "axes": [0, 1]}, (6, 9, 2)),
    ({"scales": [1.1], "axes": [0], "size_rounding": "round"}, (4, 6, 2)),
    ({"scales": [1.1], "axes": [0], "size_rounding": "ceil"}, (5, 6, 2)),
    ({"scales": [1.3], "axes": [1], "size_rounding": "truncate"}, (4, 7, 2)),
    ({"sizes": [8, 0], "axes": [0, 1], "mode": "stretch"}, (8, 6, 2)),
    ({"sizes": [8, 8, 0], "mode": "not_larger"}, (5, 8, 3)),        # 0: takes the common scale
    ({"sizes": [8, 8, 0], "mode": "not_smaller"}, (8, 12, 4)),
    # An unlisted axis counts as given with its own extent (scale 1), as in DALI: it bounds
    # not_larger's scale, and not_smaller scales it too.
    ({"sizes": [8, 8], "axes": [0, 1], "mode": "not_larger"}, (4, 6, 2)),
    ({"sizes": [8, 8], "axes": [0, 1], "mode": "not_smaller"}, (8, 12, 4)),
    ({"sizes": [8, 24], "axes": [0, 1], "max_size": [100, 12]}, (8, 12, 2)),
    ({"sizes": [8, 24], "axes": [0, 1], "max_size": 10}, (8, 10, 2)),
])
def test_tensor_resize_size_forms(kwargs, shape):
    assert tr(DATA, **kwargs).shape == shape


def test_tensor_resize_axis_names_use_the_layout():
    out = run(lambda x: fn.tensor_resize(x, axis_names="HW", sizes=[8, 3]), samples=[DATA], layout="HWC")[0]
    np.testing.assert_array_equal(out, tr(DATA, axes=[0, 1], sizes=[8, 3]))


def test_tensor_resize_alignment_roi_and_flips():
    row = np.array([[1, 2, 3, 4]], np.float32)
    # roi_start > roi_end flips; roi_relative takes fractions; alignment moves a scaled region.
    np.testing.assert_array_equal(tr(row, axes=[1], sizes=[4], roi_start=[4], roi_end=[0]), row[:, ::-1])
    np.testing.assert_array_equal(tr(row, axes=[1], sizes=[2], roi_start=[0.5], roi_end=[1.0], roi_relative=True),
                                  [[3, 4]])
    a0, a1 = (tr(row, axes=[1], scales=[0.6], alignment=a, antialias=False) for a in (0.0, 1.0))
    assert a0.shape == a1.shape == (1, 2) and a0[0, 0] < a1[0, 0]
    np.testing.assert_array_equal(tr(row, axes=[1], scales=[0.6], subpixel_scale=False, antialias=False),
                                  tr(row, axes=[1], sizes=[2], antialias=False))


@pytest.mark.parametrize("arg, value", [
    ("interp_type", types.INTERP_NN), ("interp_type", "CUBIC"), ("min_filter", types.INTERP_LINEAR),
    ("mag_filter", types.INTERP_CUBIC), ("antialias", False), ("minibatch_size", 4), ("temp_buffer_hint", 0),
])
def test_tensor_resize_resampling_arguments_are_resizes(arg, value):
    img = image()
    out = run(lambda x: fn.tensor_resize(x, sizes=[20, 50], axes=[0, 1], **{arg: value}), samples=[img])[0]
    ref = run(lambda x: fn.resize(x, size=[20, 50], **{arg: value}), samples=[img])[0]
    np.testing.assert_array_equal(out, ref)


def test_tensor_resize_dtype_and_per_sample_sizes():
    out = run(lambda x, s: fn.tensor_resize(x, sizes=s, dtype=types.FLOAT), samples=[image(), image()], layout="",
              extra=[[np.array([10, 20, 3], np.float32), np.array([5, 5, 3], np.float32)]])
    assert out[0].dtype == np.float32 and out[0].shape == (10, 20, 3) and out[1].shape == (5, 5, 3)


def test_tensor_resize_legacy_name_and_ops_spelling():
    assert fn.experimental.tensor_resize is fn.tensor_resize
    op = ops.TensorResize(sizes=[8, 3], axes=[0, 1])
    np.testing.assert_array_equal(run(lambda x: op(x), samples=[DATA], layout="")[0], tr(DATA, sizes=[8, 3], axes=[0, 1]))


@pytest.mark.parametrize("kwargs, argument", [
    ({}, "sizes"),
    ({"sizes": 2, "scales": 2}, "sizes"),
    ({"scales": 2, "mode": "not_smaller"}, "mode"),
    ({"sizes": 2, "axes": [0], "axis_names": "H"}, "axes"),
    ({"sizes": 2, "roi_start": 0}, "roi_end"),
    ({"sizes": 2, "size_rounding": "floor"}, "size_rounding"),
])
def test_tensor_resize_bad_arguments_fail_at_the_call(kwargs, argument):
    pipe = sluice.Pipeline(batch_size=1, num_threads=1)
    with pytest.raises(Exception, match=argument):
        with pipe:
            fn.tensor_resize(fn.external_source(source=lambda: [DATA]), **kwargs)
