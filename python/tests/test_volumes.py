"""Volumetric data (DALI's DHWC / CDHW layouts) through the image and tensor operators, against
NumPy written independently here: slice, pad, transpose, normalize and erase over the depth axis D,
flip with `depthwise`, crop and crop_mirror_normalize with `crop_d` / `crop_pos_z` (anchors,
out_of_bounds_policy, fills, CDHW/DHWC outputs), FDHWC sequences frame by frame, the colour
operators on DHWC (every voxel a pixel),
on random volumes of uint8, int16 and float32, for both layouts, with constant and per-sample
arguments; the results are the same for num_threads 1 and 3.
"""
import numpy as np
import pytest

import sluice
from sluice import fn

RNG = np.random.default_rng(26)


def volumes(layout="DHWC", dtype=np.uint8, n=3):
    """n random volumes of different extents: D x H x W x 2 (or 2 x D x H x W for CDHW)."""
    out = []
    for k in range(n):
        d, h, w = 5 + k, 7 + 2 * k, 9 + k
        shape = (d, h, w, 2) if layout == "DHWC" else (2, d, h, w)
        v = RNG.integers(0, 250, shape) if dtype != np.float32 else RNG.normal(size=shape)
        out.append(v.astype(dtype))
    return out


def run(build, samples, layout, threads=2, extra=None):
    """build(x[, *extra nodes]) -> node(s); returns a list per output of NumPy samples and layouts."""
    pipe = sluice.Pipeline(batch_size=len(samples), num_threads=threads, seed=5)
    with pipe:
        x = fn.external_source(source=lambda: list(samples), layout=layout)
        ex = [fn.external_source(source=lambda e=e: list(e)) for e in (extra or [])]
        outs = build(x, *ex)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    res = pipe.run()
    return [[np.array(o.at(i)) for i in range(len(samples))] for o in res], [o.layout() for o in res]


def spatial_axes(layout):
    return {a: layout.index(a) for a in "DHW"}


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
def test_slice_pad_transpose_over_depth(layout):
    vols = volumes(layout, np.int16)
    ax = spatial_axes(layout)
    (sl, pd, tr), layouts = run(lambda x: (fn.slice(x, (1, 2, 3), (3, 4, 5), axis_names="DHW"),
                                           fn.pad(x, axis_names="DHW", shape=(9, 13, 12), fill_value=-3),
                                           fn.transpose(x, perm=[3, 0, 1, 2] if layout == "DHWC" else [1, 2, 3, 0])),
                                vols, layout)
    assert layouts == [layout, layout, "CDHW" if layout == "DHWC" else "DHWC"]
    for v, s, p, t in zip(vols, sl, pd, tr):
        idx = [slice(None)] * 4
        for a, (st, ex) in zip("DHW", [(1, 3), (2, 4), (3, 5)]):
            idx[ax[a]] = slice(st, st + ex)
        np.testing.assert_array_equal(s, v[tuple(idx)])
        width = [(0, 0)] * 4
        for a, e in zip("DHW", (9, 13, 12)):
            width[ax[a]] = (0, e - v.shape[ax[a]])
        np.testing.assert_array_equal(p, np.pad(v, width, constant_values=-3))
        np.testing.assert_array_equal(t, np.transpose(v, [3, 0, 1, 2] if layout == "DHWC" else [1, 2, 3, 0]))


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
def test_normalize_per_channel_over_the_volume(layout):
    vols = volumes(layout, np.float32)
    ax = tuple(spatial_axes(layout).values())
    (out,), _ = run(lambda x: fn.normalize(x, axis_names="DHW", scale=2.0, shift=0.5), vols, layout)
    for v, o in zip(vols, out):
        v64 = v.astype(np.float64)
        ref = (v64 - v64.mean(axis=ax, keepdims=True)) / v64.std(axis=ax, keepdims=True) * 2.0 + 0.5
        np.testing.assert_allclose(o, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
def test_erase_boxes_in_depth(layout):
    vols = volumes(layout, np.uint8)
    ax = spatial_axes(layout)
    # Two boxes (D, H, W anchors and extents), one of them running past the volume.
    (out,), _ = run(lambda x: fn.erase(x, anchor=(1, 2, 3, 3, 5, 6), shape=(2, 2, 2, 9, 1, 1), axis_names="DHW",
                                      fill_value=77), vols, layout)
    for v, o in zip(vols, out):
        ref = v.copy()
        for anchor, shape in [((1, 2, 3), (2, 2, 2)), ((3, 5, 6), (9, 1, 1))]:
            idx = [slice(None)] * 4
            for a, st, ex in zip("DHW", anchor, shape):
                idx[ax[a]] = slice(st, st + ex)
            ref[tuple(idx)] = 77
        np.testing.assert_array_equal(o, ref)


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_flip_depthwise_vertical_horizontal(layout, dtype):
    vols = volumes(layout, dtype, n=4)
    ax = spatial_axes(layout)
    flags = [(0, 0, 1), (1, 0, 0), (0, 1, 1), (1, 1, 1)]  # (horizontal, vertical, depthwise) per sample
    cols = [[np.array(f[k], np.int32) for f in flags] for k in range(3)]
    (out,), layouts = run(lambda x, h, v, d: fn.flip(x, horizontal=h, vertical=v, depthwise=d), vols, layout,
                          extra=cols)
    assert layouts == [layout]
    for v, o, (h, vt, d) in zip(vols, out, flags):
        ref = v
        for a, on in zip("WHD", (h, vt, d)):
            if on:
                ref = np.flip(ref, axis=ax[a])
        np.testing.assert_array_equal(o, ref)
    # Constant arguments, and no layout: a 4-D input is read as DHWC.
    if layout == "DHWC":
        (out,), layouts = run(lambda x: fn.flip(x, horizontal=0, depthwise=True), vols, "")
        assert layouts == ["DHWC"]
        for v, o in zip(vols, out):
            np.testing.assert_array_equal(o, v[::-1])


def anchor(pos, n, e):
    """DALI's anchor: round(pos * (n - e)), pos a float32, halfway cases away from zero."""
    a = float(np.float32(pos)) * (n - e)
    return int(np.floor(a + 0.5)) if a >= 0 else -int(np.floor(-a + 0.5))


def crop_ref(v, layout, start, size, fill):
    """v's window [start, start + size) over D, H, W; elements outside take fill[channel]."""
    ax = spatial_axes(layout)
    c_axis = layout.index("C")
    shape = list(v.shape)
    for a, e in zip("DHW", size):
        shape[ax[a]] = e
    out = np.empty(shape, v.dtype)
    for c in range(v.shape[c_axis]):
        np.moveaxis(out, c_axis, 0)[c] = fill[c % len(fill)]
    src, dst = [slice(None)] * 4, [slice(None)] * 4
    for a, st, e in zip("DHW", start, size):
        lo, hi = max(st, 0), min(st + e, v.shape[ax[a]])
        if hi <= lo:
            return out
        src[ax[a]], dst[ax[a]] = slice(lo, hi), slice(lo - st, hi - st)
    out[tuple(dst)] = v[tuple(src)]
    return out


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
def test_crop_depth_window_anchors(layout):
    vols = volumes(layout, np.uint8)
    ax = spatial_axes(layout)
    pos_z = [0.0, 0.5, 1.0]
    (a, b), layouts = run(lambda x, pz: (fn.crop(x, crop=(3, 4, 5), crop_pos_x=0.2, crop_pos_y=0.7, crop_pos_z=pz),
                                         fn.crop(x, crop_d=2, crop_h=3, crop_w=0)),
                          vols, layout, extra=[[np.float32(p) for p in pos_z]])
    assert layouts == [layout, layout]
    for v, o, o2, pz in zip(vols, a, b, pos_z):
        D, H, W = (v.shape[ax[k]] for k in "DHW")
        start = [anchor(p, n, e) for p, n, e in [(pz, D, 3), (0.7, H, 4), (0.2, W, 5)]]
        np.testing.assert_array_equal(o, crop_ref(v, layout, start, (3, 4, 5), [0]))
        start = [anchor(0.5, n, e) for n, e in [(D, 2), (H, 3), (W, W)]]
        np.testing.assert_array_equal(o2, crop_ref(v, layout, start, (2, 3, W), [0]))


@pytest.mark.parametrize("layout", ["DHWC", "CDHW"])
def test_crop_out_of_bounds_policies_in_depth(layout):
    vols = volumes(layout, np.int16)
    ax = spatial_axes(layout)
    (pad, trim, cube), _ = run(lambda x: (
        fn.crop(x, crop=(12, 4, 4), crop_pos_z=0.25, out_of_bounds_policy="pad", fill_values=(5, -6)),
        fn.crop(x, crop=(12, 4, 4), crop_pos_z=0.25, out_of_bounds_policy="trim_to_shape"),
        fn.crop(x, crop=4, crop_pos_x=0.0, crop_pos_y=0.0, crop_pos_z=0.0)), vols, layout)
    for v, p, t, c in zip(vols, pad, trim, cube):
        D, H, W = (v.shape[ax[k]] for k in "DHW")
        z, y, x = anchor(0.25, D, 12), anchor(0.5, H, 4), anchor(0.5, W, 4)
        np.testing.assert_array_equal(p, crop_ref(v, layout, (z, y, x), (12, 4, 4), [5, -6]))
        lo, hi = max(z, 0), min(z + 12, D)
        np.testing.assert_array_equal(t, crop_ref(v, layout, (lo, y, x), (hi - lo, 4, 4), [0]))
        np.testing.assert_array_equal(c, crop_ref(v, layout, (0, 0, 0), (4, 4, 4), [0]))
    with pytest.raises(Exception, match=r"crop.*depth"):
        run(lambda x: fn.crop(x, crop=(12, 4, 4)), vols, layout)


def test_volume_ops_same_for_any_thread_count():
    vols = volumes("DHWC", np.uint8, n=5)
    build = lambda x: (fn.flip(fn.crop(x, crop=(3, 5, 5), crop_pos_z=0.3), depthwise=1, vertical=1),
                       fn.erase(x, anchor=(1, 1, 1), shape=(2, 2, 2), axis_names="DHW"))
    first, _ = run(build, vols, "DHWC", threads=1)
    again, _ = run(build, vols, "DHWC", threads=3)
    for a, b in zip(first, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_bad_volume_arguments_name_the_argument():
    vols = volumes("DHWC", np.uint8)
    with pytest.raises(Exception, match="depthwise"):
        run(lambda x: fn.flip(x, depthwise=2), vols, "DHWC")
    with pytest.raises(Exception, match="crop_d"):
        run(lambda x: fn.crop(x, crop=(2, 2, 2), crop_d=2), vols, "DHWC")
    with pytest.raises(Exception, match="crop"):
        run(lambda x: fn.crop(x, crop=(1, 2, 3, 4)), vols, "DHWC")
    with pytest.raises(Exception, match="layout"):
        run(lambda x: fn.flip(x, depthwise=1), vols, "FHWC"[:0] + "HWCD")


def test_sequences_of_volumes_frame_by_frame():
    """FDHWC: flip, crop and resize take each frame as the DHWC volume it is."""
    seqs = [RNG.integers(0, 250, (2, 4, 5, 6, 1)).astype(np.uint8) for _ in range(2)]
    (fl, cr, rs), layouts = run(lambda x: (fn.flip(x, horizontal=0, depthwise=1), fn.crop(x, crop=(2, 3, 4)),
                                           fn.resize(x, size=(8, 5, 6), antialias=False)), seqs, "FDHWC")
    assert layouts == ["FDHWC"] * 3
    for s, f, c, r in zip(seqs, fl, cr, rs):
        np.testing.assert_array_equal(f, s[:, ::-1])
        z, y, x = anchor(0.5, 4, 2), anchor(0.5, 5, 3), anchor(0.5, 6, 4)
        np.testing.assert_array_equal(c, s[:, z:z + 2, y:y + 3, x:x + 4])
        assert r.shape == (2, 8, 5, 6, 1)
        # Depth doubled by linear interpolation, height and width kept: each frame on its own.
        np.testing.assert_array_equal(r[:, 0], s[:, 0])


@pytest.mark.parametrize("out_layout", ["CDHW", "DHWC", "CHW"])
def test_crop_mirror_normalize_volumes(out_layout):
    vols = volumes("DHWC", np.uint8)
    mean, std = [100.0, 50.0], [20.0, 40.0]
    mirror = [np.int32(m) for m in (1, 0, 1)]
    (out,), layouts = run(lambda x, m: fn.crop_mirror_normalize(
        x, crop=(6, 4, 5), crop_pos_z=0.0, crop_pos_x=0.7, mirror=m, mean=mean, std=std, output_layout=out_layout,
        out_of_bounds_policy="pad", fill_values=(-1.0, -2.0)), vols, "DHWC", extra=[mirror])
    want_layout = "DHWC" if out_layout == "DHWC" else "CDHW"
    assert layouts == [want_layout]
    for v, o, m in zip(vols, out, mirror):
        D, H, W = v.shape[:3]
        start = (anchor(0.0, D, 6), anchor(0.5, H, 4), anchor(0.7, W, 5))
        win = crop_ref(v.astype(np.float32), "DHWC", start, (6, 4, 5), [np.nan])
        if m:
            win = win[:, :, ::-1]
        ref = (win - np.float32(mean)) / np.float32(std)
        ref = np.where(np.isnan(ref), np.float32([-1.0, -2.0]), ref)  # padded voxels take fill_values
        if want_layout == "CDHW":
            ref = np.moveaxis(ref, 3, 0)
        assert o.dtype == np.float32
        np.testing.assert_allclose(o, ref, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("op,kwargs", [
    ("brightness_contrast", dict(brightness=1.3, contrast=0.7, brightness_shift=0.05)),
    ("brightness", dict(brightness=0.8)),
    ("contrast", dict(contrast=1.5, contrast_center=100.0)),
    ("hsv", dict(hue=30.0, saturation=0.5, value=1.1)),
    ("color_twist", dict(hue=-20.0, saturation=1.2, brightness=0.9, contrast=1.1)),
])
def test_colour_adjustments_take_dhwc_volumes_pixel_by_pixel(op, kwargs):
    """DALI's brightness_contrast family and its colour twists take DHWC volumes: every voxel is
    adjusted as a pixel, so a volume equals its slices stacked as one (D*H) x W image."""
    vols = [RNG.integers(0, 256, (4 + k, 5, 6 + k, 3)).astype(np.uint8) for k in range(2)]
    f = getattr(fn, op)
    (out,), layouts = run(lambda x: f(x, **kwargs), vols, "DHWC")
    (flat,), _ = run(lambda x: f(x, **kwargs), [v.reshape(-1, v.shape[2], 3) for v in vols], "HWC")
    assert layouts == ["DHWC"]
    for v, o, r in zip(vols, out, flat):
        assert o.shape == v.shape
        np.testing.assert_array_equal(o, r.reshape(v.shape))
        assert not np.array_equal(o, v)
