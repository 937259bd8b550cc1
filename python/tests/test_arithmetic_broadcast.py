"""Arithmetic between DataNodes broadcasts as NumPy (and DALI) do, per sample: an (H, W, 1) mask
times an (H, W, 3) image, an image times a constant of shape (3,), rows against columns; and
reductions with axes=() / axis_names="" reduce nothing, as in DALI."""
import numpy as np
import pytest

import sluice
from sluice import fn, types


def run(build, *batches, layouts=None, threads=2):
    n = len(batches[0])
    pipe = sluice.Pipeline(batch_size=n, num_threads=threads, device_id=None, seed=1)
    layouts = layouts or [""] * len(batches)
    with pipe:
        nodes = [fn.external_source(source=(lambda b=b: b), layout=l) for b, l in zip(batches, layouts)]
        out = build(*nodes)
        pipe.set_outputs(*(out if isinstance(out, tuple) else (out,)))
    pipe.build()
    return [([np.array(o.at(i)) for i in range(len(o))], o.layout()) for o in pipe.run()]


rng = np.random.default_rng(0)


def test_mask_times_image():
    img = [rng.integers(0, 255, (4, 5, 3)).astype(np.uint8), rng.integers(0, 255, (2, 7, 3)).astype(np.uint8)]
    mask = [(rng.random((4, 5, 1)) > 0.5).astype(np.uint8), (rng.random((2, 7, 1)) > 0.5).astype(np.uint8)]
    (got, layout), = run(lambda a, m: a * m, img, mask, layouts=["HWC", ""])
    assert layout == "HWC"
    for g, a, m in zip(got, img, mask):
        np.testing.assert_array_equal(g, a * m)


def test_image_times_channel_constant():
    img = [rng.random((3, 4, 3)).astype(np.float32), rng.random((5, 2, 3)).astype(np.float32)]
    (got, _), = run(lambda a: a * types.Constant([0.5, 1.0, 2.0], dtype=types.FLOAT), img)
    for g, a in zip(got, img):
        np.testing.assert_allclose(g, a * np.array([0.5, 1.0, 2.0], np.float32), rtol=1e-6)


@pytest.mark.parametrize("sa,sb", [((3, 1), (1, 4)), ((4,), (3, 4)), ((2, 1, 4), (3, 1)), ((1, 1), (5, 6)),
                                   ((3, 4), (3, 4)), ((6,), (1,))])
@pytest.mark.parametrize("dtype", [np.int16, np.float32])
def test_numpy_broadcasting_rules(sa, sb, dtype):
    a = [(rng.random(sa) * 100).astype(dtype) for _ in range(2)]
    b = [(rng.random(sb) * 100).astype(dtype) for _ in range(2)]
    (s, _), (d, _), (c, _) = run(lambda x, y: (x + y, x - y, x < y), a, b, threads=3)
    for i in range(2):
        np.testing.assert_allclose(s[i], a[i] + b[i], rtol=1e-6)
        np.testing.assert_allclose(d[i], a[i] - b[i], rtol=1e-6)
        np.testing.assert_array_equal(c[i], a[i] < b[i])


def test_three_operands_one_expression():
    a = [rng.random((2, 3, 1)).astype(np.float32)]
    b = [rng.random((1, 3, 4)).astype(np.float32)]
    c = [rng.random((4,)).astype(np.float32)]
    (got, _), = run(lambda x, y, z: x * y + z, a, b, c)
    np.testing.assert_allclose(got[0], a[0] * b[0] + c[0], rtol=1e-6)


def test_incompatible_shapes_name_both():
    with pytest.raises(sluice.SluiceError, match=r"\(2, 3\).*\(2, 4\).*cannot be broadcast"):
        run(lambda x, y: x + y, [np.zeros((2, 3), np.float32)], [np.zeros((2, 4), np.float32)])


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reductions_over_no_axes_reduce_nothing(op):
    x = [rng.random((3, 4, 2)).astype(np.float32), rng.random((5, 1, 2)).astype(np.float32)]
    red = getattr(fn.reductions, op)
    (ax, ax_layout), (names, names_layout), (everything, _) = run(
        lambda d: (red(d, axes=[]), red(d, axis_names=""), red(d)), x, layouts=["HWC"])
    assert ax_layout == names_layout == "HWC"
    for i, a in enumerate(x):
        np.testing.assert_allclose(ax[i], a, rtol=1e-6)
        np.testing.assert_allclose(names[i], a, rtol=1e-6)
        np.testing.assert_allclose(everything[i], getattr(np, op)(a), rtol=1e-5)
