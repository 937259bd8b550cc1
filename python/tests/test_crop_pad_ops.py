"""fn.slice, fn.pad, fn.paste, fn.jitter and fn.random_resized_crop from Python, as a DALI user
writes them, against independent references:

- slice/pad/paste: exact equality with NumPy slicing and np.pad / np.full on real photographs and
  on DALI's documented pad examples (axis_names "WH" order of the slice arguments, rel_* arguments,
  the positional anchor/shape inputs, out_of_bounds_policy, per-sample argument inputs);
- random_resized_crop: its windows (recovered exactly from a coordinate image resized with NN to
  its own size) follow torchvision.transforms.RandomResizedCrop.get_params' distribution -- a
  two-sample Kolmogorov-Smirnov test over 10,000 draws of area and aspect ratio (and anchors) --
  and its output is fn.resize of the same window with the same filter, bit for bit;
- jitter (GPU-only in DALI, here on the CPU): every pixel comes from its nDegree neighbourhood, and
  the result is the same for num_threads 1 and 2;
- the errors name the operator and the argument at fault.
"""
import math
import pathlib

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"
PHOTOS = ["photo_500x375.jpg", "progressive.jpg"]


def photos():
    Image = pytest.importorskip("PIL.Image")
    return [np.asarray(Image.open(IMAGES / name).convert("RGB")) for name in PHOTOS]


def run(build, feeds, *, threads=2, seed=3, iterations=1):
    """feeds: {name: list of samples (or a callable returning them)}; build(**nodes) -> outputs.
    Returns, per iteration, a list per output of NumPy samples."""
    n = len(next(iter(feeds.values())))
    pipe = sluice.Pipeline(batch_size=n, num_threads=threads, seed=seed)
    with pipe:
        nodes = {}
        for name, samples in feeds.items():
            layout = {"img": "HWC", "chw": "CHW"}.get(name, "")
            nodes[name] = fn.external_source(source=lambda s=samples: list(s), layout=layout)
        outs = build(**nodes)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        pipe.set_outputs(*outs)
    result = []
    for _ in range(iterations):
        res = pipe.run()
        result.append([[np.array(o.at(i)) for i in range(n)] for o in res])
    return result if iterations > 1 else result[0]


def llround(v):
    """C's llround (halfway cases away from zero), which DALI's slice uses; Python's round() is not."""
    return int(math.floor(v + 0.5)) if v >= 0 else -int(math.floor(-v + 0.5))


def padded(img, y0, x0, h, w, fill=0):
    """NumPy reference: img[y0:y0+h, x0:x0+w] with `fill` (scalar or per channel) outside."""
    out = np.empty((h, w) + img.shape[2:], img.dtype)
    out[...] = np.asarray(fill, img.dtype)
    ys, xs = max(y0, 0), max(x0, 0)
    ye, xe = min(y0 + h, img.shape[0]), min(x0 + w, img.shape[1])
    if ye > ys and xe > xs:
        out[ys - y0:ye - y0, xs - x0:xe - x0] = img[ys:ye, xs:xe]
    return out


# ---- slice ----

def test_slice_named_arguments_match_numpy():
    imgs = photos()
    outs = run(lambda img: (
        fn.slice(img, start=[10, 20], shape=[100, 50]),                  # (x, y): DALI's axis_names="WH"
        fn.slice(img, rel_start=[0.25, 0.1], rel_end=[0.75, 0.6]),
        fn.slice(img, axes=[0], start=[5], end=[40]),
        fn.slice(img, axis_names="C", start=[1], shape=[2]),
        fn.slice(img, start=[-7, -3], shape=[30, 20], out_of_bounds_policy="pad", fill_values=[1, 2, 3]),
        fn.slice(img, start=[-7, -3], shape=[30, 20], out_of_bounds_policy="trim_to_shape"),
        fn.slice(img, start=[10, 20], shape=[8, 4], dtype=types.FLOAT),
    ), {"img": imgs})
    for i, img in enumerate(imgs):
        h, w = img.shape[:2]
        np.testing.assert_array_equal(outs[0][i], img[20:70, 10:110])
        y0, y1 = llround(0.1 * h), llround(0.6 * h)   # each end rounded on its own
        x0, x1 = llround(0.25 * w), llround(0.75 * w)
        np.testing.assert_array_equal(outs[1][i], img[y0:y1, x0:x1])
        np.testing.assert_array_equal(outs[2][i], img[5:40])
        np.testing.assert_array_equal(outs[3][i], img[:, :, 1:3])
        np.testing.assert_array_equal(outs[4][i], padded(img, -3, -7, 20, 30, [1, 2, 3]))
        np.testing.assert_array_equal(outs[5][i], img[0:17, 0:23])
        assert outs[6][i].dtype == np.float32
        np.testing.assert_array_equal(outs[6][i], img[20:24, 10:18].astype(np.float32))


def test_slice_positional_inputs_and_per_sample_arguments():
    imgs = photos()
    anchors = [np.array([0.25, 0.5], np.float32), np.array([0.1, 0.0], np.float32)]
    shapes = [np.array([0.5, 0.25], np.float32), np.array([0.3, 1.0], np.float32)]
    abs_anchors = [np.array([10.4, 20.6], np.float32), np.array([0.5, 1.5], np.float32)]
    abs_shapes = [np.array([30.5, 40.2], np.float32), np.array([7, 9], np.float32)]
    int_anchors = [np.array([3, 4], np.int32), np.array([5, 6], np.int32)]
    int_shapes = [np.array([7, 8], np.int32), np.array([9, 10], np.int32)]
    starts = [np.array([3, 4], np.float32), np.array([20, 30], np.float32)]
    outs = run(lambda img, a, s, aa, ss, ia, iz, st: (
        fn.slice(img, a, s),                                          # normalized (x, y) by default
        fn.slice(img, aa, ss, normalized_anchor=False, normalized_shape=False),
        fn.slice(img, ia, iz),                                        # integers are absolute
        fn.slice(img, start=st, rel_shape=[0.5, 0.5]),                # per-sample start
    ), {"img": imgs, "a": anchors, "s": shapes, "aa": abs_anchors, "ss": abs_shapes, "ia": int_anchors,
        "iz": int_shapes, "st": starts})
    for i, img in enumerate(imgs):
        h, w = img.shape[:2]
        (ax, ay), (sx, sy) = anchors[i].astype(np.float64), shapes[i].astype(np.float64)
        x0, x1 = llround(ax * w), llround((ax + sx) * w)   # DALI: one product after the sum
        y0, y1 = llround(ay * h), llround((ay + sy) * h)
        np.testing.assert_array_equal(outs[0][i], img[y0:y1, x0:x1])
        (ax, ay), (sx, sy) = abs_anchors[i].astype(np.float64), abs_shapes[i].astype(np.float64)
        np.testing.assert_array_equal(outs[1][i], img[llround(ay):llround(ay + sy), llround(ax):llround(ax + sx)])
        (ax, ay), (sx, sy) = int_anchors[i], int_shapes[i]
        np.testing.assert_array_equal(outs[2][i], img[ay:ay + sy, ax:ax + sx])
        x, y = (int(v) for v in starts[i])
        np.testing.assert_array_equal(outs[3][i], img[y:llround(y + 0.5 * h), x:llround(x + 0.5 * w)])


def test_slice_n_d_without_layout():
    data = [np.arange(2 * 3 * 4 * 5, dtype=np.int16).reshape(2, 3, 4, 5), np.arange(60, dtype=np.int16).reshape(3, 4, 5, 1)]
    outs = run(lambda x: fn.slice(x, axes=[2, -1], start=[1, 0], end=[3, 1]), {"x": data})
    for i, d in enumerate(data):
        np.testing.assert_array_equal(outs[0][i], d[:, :, 1:3, 0:1])


# ---- pad ----

def test_pad_matches_dalis_documented_examples():
    rows = [np.array(r, np.int32) for r in ([3, 4, 2, 5, 4], [2, 2], [3, 199, 5])]

    def expect(out, lengths):
        for o, r, n in zip(out, rows, lengths):
            np.testing.assert_array_equal(o, np.pad(r, (0, n - len(r)), constant_values=-1))

    outs = run(lambda x: (
        fn.pad(x, fill_value=-1, axes=(0,)),
        fn.pad(x, fill_value=-1, axes=(0,), shape=(7,)),
        fn.pad(x, fill_value=-1, axes=(0,), align=(4,)),
        fn.pad(x, fill_value=-1, axes=(0,), shape=(1,), align=(2,)),
    ), {"x": rows})
    expect(outs[0], [5, 5, 5])
    expect(outs[1], [7, 7, 7])
    expect(outs[2], [8, 8, 8])
    expect(outs[3], [6, 2, 4])
    mats = [np.array([[1, 2, 3], [4, 5, 6]], np.float32), np.array([[1, 2], [4, 5], [6, 7]], np.float32)]
    outs = run(lambda x: fn.pad(x, axes=(0, 1), align=(1, 2), shape=(4, -1)), {"x": mats})
    for o, m in zip(outs[0], mats):
        np.testing.assert_array_equal(o, np.pad(m, ((0, 4 - m.shape[0]), (0, 4 - m.shape[1]))))


def test_pad_images_by_axis_names():
    imgs = photos()
    outs = run(lambda img: fn.pad(img, axis_names="HW", fill_value=17), {"img": imgs})
    H = max(i.shape[0] for i in imgs)
    W = max(i.shape[1] for i in imgs)
    for o, img in zip(outs[0], imgs):
        np.testing.assert_array_equal(o, padded(img, 0, 0, H, W, 17))


# ---- paste ----

def test_paste_matches_numpy():
    imgs = photos()
    outs = run(lambda img: (
        fn.paste(img, ratio=1.5, paste_x=0.25, paste_y=1.0, fill_value=(10, 20, 30)),
        fn.paste(img, ratio=1.0, min_canvas_size=700, fill_value=0),
    ), {"img": imgs})
    for i, img in enumerate(imgs):
        h, w = img.shape[:2]
        ch, cw = int(1.5 * h), int(1.5 * w)
        y, x = int(1.0 * (ch - h)), int(0.25 * (cw - w))
        np.testing.assert_array_equal(outs[0][i], padded(img, -y, -x, ch, cw, [10, 20, 30]))
        ch, cw = max(h, 700), max(w, 700)
        np.testing.assert_array_equal(outs[1][i], padded(img, -int(0.5 * (ch - h)), -int(0.5 * (cw - w)), ch, cw, 0))


# ---- jitter ----

def test_jitter_moves_pixels_within_n_degree_and_is_deterministic():
    h, w = 40, 60
    coords = np.dstack(np.meshgrid(np.arange(w), np.arange(h))).astype(np.float32)  # (x, y) per pixel
    imgs = [coords] * 4
    a = run(lambda img: fn.jitter(img, nDegree=5, fill_value=-1), {"img": imgs}, threads=1)
    b = run(lambda img: fn.jitter(img, nDegree=5, fill_value=-1), {"img": imgs}, threads=2)
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    for o in a[0]:
        inside = o[..., 0] >= 0
        d = o[inside] - coords[inside]
        assert d.min() >= -2 and d.max() <= 2
        assert (~inside).sum() > 0 and (~inside[:-2, :-2]).sum() == 0  # fill only at the right/bottom border
    assert not np.array_equal(a[0][0], a[0][1])  # each sample its own displacements


# ---- random_resized_crop ----

def ks_statistic(a, b):
    a, b = np.sort(a), np.sort(b)
    x = np.concatenate([a, b])
    return np.max(np.abs(np.searchsorted(a, x, side="right") / len(a) - np.searchsorted(b, x, side="right") / len(b)))


def rrc_windows(h, w, batch, iterations, seed, **kwargs):
    """(x, y, w, h) of every window random_resized_crop drew, from a coordinate image resized with NN
    to its own size (never downscaling, so the output's corners are the window's corner pixels)."""
    coords = np.dstack(np.meshgrid(np.arange(w), np.arange(h))).astype(np.float32)
    res = run(lambda img: fn.random_resized_crop(img, size=(h, w), interp_type=types.INTERP_NN, name="rrc", **kwargs),
              {"img": [coords] * batch}, seed=seed, iterations=iterations)
    res = res if iterations > 1 else [res]
    wins = []
    for it in res:
        for o in it[0]:
            x0, y0 = o[0, 0]
            x1, y1 = o[-1, -1]
            wins.append((x0, y0, x1 - x0 + 1, y1 - y0 + 1))
    return np.array(wins, np.float64)


def test_random_resized_crop_windows_follow_torchvision_get_params():
    torch = pytest.importorskip("torch")
    T = pytest.importorskip("torchvision.transforms")
    H, W, N = 120, 160, 10_000
    ours = rrc_windows(H, W, 100, N // 100, seed=12, random_aspect_ratio=[3 / 4, 4 / 3])
    assert len(ours) == N
    torch.manual_seed(0)
    img = torch.zeros(3, H, W)
    tv = np.array([T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3)) for _ in range(N)], np.float64)
    crit = 1.95 * math.sqrt(2 / N)  # alpha = 0.001
    pairs = {
        "area": (ours[:, 2] * ours[:, 3], tv[:, 2] * tv[:, 3]),
        "log aspect ratio": (np.log(ours[:, 2] / ours[:, 3]), np.log(tv[:, 3] / tv[:, 2])),
        "x": (ours[:, 0], tv[:, 1]),
        "y": (ours[:, 1], tv[:, 0]),
    }
    for what, (a, b) in pairs.items():
        d = ks_statistic(a, b)
        assert d < crit, f"{what}: KS D = {d:.4f} >= {crit:.4f}"


def test_random_resized_crop_is_resize_of_the_window():
    imgs = photos()
    imgs = [imgs[0], imgs[0][::-1].copy()]  # same shape: the windows of the coordinate image apply
    h, w = imgs[0].shape[:2]
    coords = np.dstack(np.meshgrid(np.arange(w), np.arange(h))).astype(np.float32)
    out = run(lambda img: fn.random_resized_crop(img, size=(224, 200), min_filter=types.INTERP_CUBIC, name="rrc"),
              {"img": imgs}, seed=21)[0]
    # The same graph with the same seed draws the same windows (the filters and the size do not touch
    # the random stream): read them from the coordinate image resized with NN to its own size.
    win = run(lambda img: fn.random_resized_crop(img, interp_type=types.INTERP_NN, size=(h, w), name="rrc"),
              {"img": [coords] * 2}, seed=21)[0]
    starts, ends = [], []
    for o in win:
        (x0, y0), (x1, y1) = o[0, 0], o[-1, -1]
        starts.append(np.array([y0, x0], np.float32))
        ends.append(np.array([y1 + 1, x1 + 1], np.float32))
    ref = run(lambda img, s, e: fn.resize(img, size=(224, 200), roi_start=s, roi_end=e, min_filter=types.INTERP_CUBIC),
              {"img": imgs, "s": starts, "e": ends})[0]
    for a, b in zip(out, ref):
        assert a.shape == (224, 200, 3)
        np.testing.assert_array_equal(a, b)


def test_random_resized_crop_deterministic_across_threads_and_chw():
    imgs = photos()[:1] * 3
    a = run(lambda img: fn.random_resized_crop(img, size=64), {"img": imgs}, threads=1)[0]
    b = run(lambda img: fn.random_resized_crop(img, size=64), {"img": imgs}, threads=2)[0]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])
    chw = [np.ascontiguousarray(i.transpose(2, 0, 1)) for i in imgs]
    c = run(lambda chw: fn.random_resized_crop(chw, size=64), {"chw": chw})[0]
    assert c[0].shape == (3, 64, 64)
    for x, y in zip(a, c):
        np.testing.assert_array_equal(x.transpose(2, 0, 1), y)


# ---- errors ----

@pytest.mark.parametrize("op, kwargs, argument", [
    (fn.slice, dict(start=[1, 2], rel_start=[0.1, 0.1]), "rel_start"),
    (fn.slice, dict(start=[1, 2], out_of_bounds_policy="clamp"), "out_of_bounds_policy"),
    (fn.slice, dict(end=[1, 2], shape=[3, 3]), "shape"),
    (fn.pad, dict(axes=[0], axis_names="H"), "axis_names"),
    (fn.pad, dict(align=[0]), "align"),
    (fn.paste, dict(ratio=0.5, fill_value=0), "ratio"),
    (fn.paste, dict(ratio=2, paste_y=-0.1, fill_value=0), "paste_y"),
    (fn.jitter, dict(nDegree=0), "nDegree"),
    (fn.jitter, dict(interp_type=types.INTERP_CUBIC), "interp_type"),
    (fn.random_resized_crop, dict(size=(4, 4, 4)), "size"),
    (fn.random_resized_crop, dict(size=4, random_area=[0.5, 0.1]), "random_area"),
    (fn.random_resized_crop, dict(size=4, random_aspect_ratio=[0, 1]), "random_aspect_ratio"),
    (fn.random_resized_crop, dict(size=4, num_attempts=0), "num_attempts"),
])
def test_bad_arguments_are_rejected_at_the_call(op, kwargs, argument):
    with pytest.raises(sluice.ArgumentError) as e:
        run(lambda img: op(img, **kwargs), {"img": photos()[:1]})
    assert e.value.argument == argument


@pytest.mark.parametrize("op, kwargs, layout, fragments", [
    (fn.paste, dict(ratio=2, fill_value=0), "CHW", ["paste", "HWC", "'CHW'"]),
    (fn.jitter, dict(), "CHW", ["jitter", "HWC", "'CHW'"]),
    (fn.random_resized_crop, dict(size=8), "DHWC", ["random_resized_crop", "'DHWC'"]),
    (fn.paste, dict(ratio=2, fill_value=[1, 2]), "HWC", ["paste", "fill_value", "3 channels"]),
    (fn.slice, dict(start=[1, 2, 3]), "HWC", ["slice", "start", "expected 2 values"]),
    (fn.slice, dict(start=[600, 10], shape=[10, 10]), "HWC", ["slice", "start", "out_of_bounds_policy"]),
    (fn.slice, dict(axis_names="D", start=[1]), "HWC", ["slice", "axis_names", "'D'"]),
    (fn.pad, dict(axes=[0, 1], shape=[3]), "HWC", ["pad", "shape", "expected 2"]),
])
def test_errors_name_the_operator_and_argument(op, kwargs, layout, fragments):
    img = photos()[0][:64, :64]
    data = img.transpose(2, 0, 1) if layout == "CHW" else img[None] if layout == "DHWC" else img
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=1)
    with pytest.raises(sluice.SluiceError) as e:
        with pipe:
            pipe.set_outputs(op(fn.external_source(source=lambda: [np.ascontiguousarray(data)], layout=layout), **kwargs))
        pipe.run()
    for f in fragments:
        assert f in str(e.value), (f, str(e.value))


def test_mismatched_per_sample_argument_shapes():
    imgs = photos()
    starts = [np.array([1, 2], np.float32), np.array([1, 2, 3], np.float32)]
    with pytest.raises(sluice.SluiceError) as e:
        run(lambda img, s: fn.slice(img, start=s, shape=[4, 4]), {"img": imgs, "s": starts})
    assert e.value.argument == "start" and "expected 2 values" in str(e.value)
    shapes = [np.array([600], np.int64), np.array([600, 700], np.int64)]
    with pytest.raises(sluice.SluiceError) as e:
        run(lambda img, s: fn.pad(img, axis_names="HW", shape=s), {"img": imgs, "s": shapes})
    assert e.value.argument == "shape"
