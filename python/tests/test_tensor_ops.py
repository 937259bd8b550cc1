"""Tensor utilities (reshape, squeeze, expand_dims, shapes, cat, stack) against NumPy, through
fn.external_source, with DALI's layouts and errors naming the operator and argument."""
import numpy as np
import pytest

import sluice
from sluice import fn, types


def run(build, batch_size=3, threads=2):
    """Builds a pipeline from `build` (returns DataNodes), runs one batch; a list of (arrays, layout)."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, device_id=None, seed=1)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    return [([np.array(o.at(i)) for i in range(len(o))], o.layout()) for o in pipe.run()]


def batch(shapes, dtype=np.float32, start=0):
    out, v = [], start
    for s in shapes:
        n = int(np.prod(s))
        out.append((np.arange(v, v + n) % 251).astype(dtype).reshape(s))
        v += n
    return out


def src(data, layout=""):
    return fn.external_source(source=lambda: data, layout=layout)


DTYPES = [np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_reshape_matches_numpy(dtype):
    data = batch([(4, 6, 3), (2, 12, 3), (8, 3, 3)], dtype)
    (got, layout), = run(lambda: fn.reshape(src(data, "HWC"), shape=[-1, 3]))
    assert layout == ""
    for x, y in zip(data, got):
        assert y.dtype == dtype
        np.testing.assert_array_equal(y, np.reshape(x, (-1, 3)))


def test_reshape_layout_rel_shape_src_dims_and_shape_input():
    data = batch([(4, 6, 3), (4, 6, 3), (4, 6, 3)])
    (same, l1), (given, l2), (rel, _), (sd, _) = run(lambda: (
        fn.reshape(src(data, "HWC"), shape=[6, 4, 3]),
        fn.reshape(src(data, "HWC"), shape=[3, 24], layout="CX"),
        fn.reshape(src(data, "HWC"), rel_shape=[0.5, -1]),
        fn.reshape(src(data, "HWC"), src_dims=[-1, 1, 0, 2])))
    assert l1 == "HWC" and l2 == "CX"
    np.testing.assert_array_equal(same[0], data[0].reshape(6, 4, 3))
    np.testing.assert_array_equal(given[1], data[1].reshape(3, 24))
    np.testing.assert_array_equal(rel[2], data[2].reshape(2, 36))
    np.testing.assert_array_equal(sd[0], data[0].reshape(1, 6, 4, 3))
    shapes = [np.array([12, 6], np.int64), np.array([6, 12], np.int64), np.array([72, 1], np.int64)]
    (got, _), = run(lambda: fn.reshape(src(data), src(shapes)))
    for x, s, y in zip(data, shapes, got):
        np.testing.assert_array_equal(y, x.reshape(tuple(s)))


def test_reshape_errors():
    data = batch([(4, 6)] * 3)
    with pytest.raises(sluice.SluiceError, match=r"reshape.*shape.*25.*24"):
        run(lambda: fn.reshape(src(data), shape=[5, 5]))
    with pytest.raises(sluice.SluiceError, match=r"reshape.*layout"):
        run(lambda: fn.reshape(src(data), shape=[24], layout="HW"))


def test_squeeze_and_expand_dims_match_numpy():
    data = batch([(1, 5, 1, 3), (1, 2, 1, 3), (1, 7, 1, 3)], np.int32)
    (sq, l1), (sqn, l2) = run(lambda: (fn.squeeze(src(data, "FHWC"), axes=[0, -2]),
                                       fn.squeeze(src(data, "FHWC"), axis_names="W")))
    assert l1 == "HC" and l2 == "FHC"
    for x, a, b in zip(data, sq, sqn):
        np.testing.assert_array_equal(a, np.squeeze(x, axis=(0, 2)))
        np.testing.assert_array_equal(b, np.squeeze(x, axis=2))
    flat = batch([(5, 3), (2, 3), (4, 3)], np.uint16)
    (ex, l3), (ex2, l4) = run(lambda: (fn.expand_dims(src(flat, "HW"), axes=[0, 3], new_axis_names="FC"),
                                       fn.expand_dims(src(flat, "HW"), axes=[1])))
    assert l3 == "FHWC" and l4 == ""
    for x, a, b in zip(flat, ex, ex2):
        np.testing.assert_array_equal(a, np.expand_dims(x, (0, 3)))
        np.testing.assert_array_equal(b, np.expand_dims(x, 1))
    with pytest.raises(sluice.SluiceError, match=r"squeeze.*axes.*extent 5"):
        run(lambda: fn.squeeze(src(data), axes=[1]))
    with pytest.raises(sluice.SluiceError, match=r"expand_dims.*axes.*out of range"):
        run(lambda: fn.expand_dims(src(flat), axes=[3]))


def test_shapes_default_int64_and_dtype():
    data = batch([(4, 6, 3), (2, 7, 1), (1, 1, 1)], np.uint8)
    (a, _), (b, _) = run(lambda: (fn.shapes(src(data)), fn.shapes(src(data), dtype=types.INT32)))
    for x, s, t in zip(data, a, b):
        assert s.dtype == np.int64 and t.dtype == np.int32
        np.testing.assert_array_equal(s, np.array(x.shape))
        np.testing.assert_array_equal(t, np.array(x.shape))


@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_and_stack_match_numpy(dtype):
    a = batch([(2, 1, 3), (4, 1, 3), (1, 1, 3)], dtype)
    b = batch([(2, 2, 3), (4, 3, 3), (1, 1, 3)], dtype, start=100)
    c = batch([(2, 1, 3), (4, 1, 3), (1, 1, 3)], dtype, start=200)
    (cat, l1), (st, l2), (st_last, l3) = run(lambda: (
        fn.cat(src(a, "HWC"), src(b, "HWC"), src(c), axis=1),
        fn.stack(src(a, "HWC"), src(c, "HWC"), axis_name="N"),
        fn.stack(src(a, "HWC"), src(c, "HWC"), axis=-1)))
    assert l1 == "HWC" and l2 == "NHWC" and l3 == ""
    for i in range(3):
        np.testing.assert_array_equal(cat[i], np.concatenate([a[i], b[i], c[i]], axis=1))
        np.testing.assert_array_equal(st[i], np.stack([a[i], c[i]]))
        np.testing.assert_array_equal(st_last[i], np.stack([a[i], c[i]], axis=-1))
        assert cat[i].dtype == dtype


def test_cat_stack_errors():
    a = batch([(2, 3)] * 3)
    b = batch([(3, 3)] * 3)
    with pytest.raises(sluice.SluiceError, match=r"cat.*input 1.*shape"):
        run(lambda: fn.cat(src(a), src(b), axis=1))
    with pytest.raises(sluice.SluiceError, match=r"stack.*equal shapes"):
        run(lambda: fn.stack(src(a), src(b)))
    with pytest.raises(sluice.SluiceError, match=r"cat.*axis_name"):
        run(lambda: fn.cat(src(a, "HW"), src(a, "HW"), axis_name="C"))


REDUCE_AXES = [None, [0], [1], [-1], [0, 2], [0, 1, 2]]


@pytest.mark.parametrize("axes", REDUCE_AXES)
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64])
def test_reductions_match_numpy(axes, keep_dims, dtype):
    data = batch([(3, 4, 5), (2, 3, 4), (1, 6, 2)], dtype)
    ax = None if axes is None else tuple(axes)
    kw = {} if axes is None else {"axes": axes}
    outs = run(lambda: (
        fn.reductions.sum(src(data, "HWC"), keep_dims=keep_dims, **kw),
        fn.reductions.min(src(data, "HWC"), keep_dims=keep_dims, **kw),
        fn.reductions.max(src(data, "HWC"), keep_dims=keep_dims, **kw),
        fn.reductions.mean(src(data, "HWC"), keep_dims=keep_dims, dtype=types.FLOAT64, **kw),
        fn.reductions.mean_square(src(data, "HWC"), keep_dims=keep_dims, dtype=types.FLOAT64, **kw),
        fn.reductions.rms(src(data, "HWC"), keep_dims=keep_dims, dtype=types.FLOAT64, **kw)))
    (s, ls), (mn, _), (mx, _), (me, _), (ms, _), (rms, _) = outs
    if keep_dims:
        assert ls == "HWC"
    elif axes is None or len(axes) == 3:
        assert ls == ""
    for i, x in enumerate(data):
        wide = np.int64 if np.issubdtype(dtype, np.integer) else dtype  # DALI: integer sums widen
        np.testing.assert_array_equal(s[i], np.sum(x, axis=ax, keepdims=keep_dims, dtype=wide))
        assert s[i].dtype == wide and mn[i].dtype == dtype
        np.testing.assert_array_equal(mn[i], np.min(x, axis=ax, keepdims=keep_dims))
        np.testing.assert_array_equal(mx[i], np.max(x, axis=ax, keepdims=keep_dims))
        xf = x.astype(np.float64)
        np.testing.assert_allclose(me[i], np.mean(xf, axis=ax, keepdims=keep_dims), rtol=1e-12)
        np.testing.assert_allclose(ms[i], np.mean(xf * xf, axis=ax, keepdims=keep_dims), rtol=1e-12)
        np.testing.assert_allclose(rms[i], np.sqrt(np.mean(xf * xf, axis=ax, keepdims=keep_dims)), rtol=1e-12)


@pytest.mark.parametrize("ddof", [0, 1])
def test_std_dev_and_variance_take_the_mean_and_ddof(ddof):
    data = batch([(3, 4), (2, 6), (5, 2)], np.float64)
    (v, lv), (sd, _), (m, _) = run(lambda: (lambda x: (lambda mean: (
        fn.reductions.variance(x, mean, axes=[1], ddof=ddof),
        fn.reductions.std_dev(x, mean, axes=[1], ddof=ddof), mean))(
        fn.reductions.mean(x, axes=[1], dtype=types.FLOAT64)))(src(data, "HW")))
    assert lv == "H"
    for i, x in enumerate(data):
        assert v[i].dtype == np.float32 and sd[i].dtype == np.float32
        np.testing.assert_allclose(m[i], np.mean(x, axis=1), rtol=1e-12)
        np.testing.assert_allclose(v[i], np.var(x, axis=1, ddof=ddof), rtol=1e-6)
        np.testing.assert_allclose(sd[i], np.std(x, axis=1, ddof=ddof), rtol=1e-6)


def test_reduction_dtype_rules_and_errors():
    data = batch([(2, 200)] * 3, np.uint8)
    (wide, _), (narrow, _), (mean, _) = run(lambda: (
        fn.reductions.sum(src(data)), fn.reductions.sum(src(data), dtype=types.UINT8), fn.reductions.mean(src(data))))
    for i, x in enumerate(data):
        assert wide[i].dtype == np.int64 and narrow[i].dtype == np.uint8 and mean[i].dtype == np.float32
        assert int(wide[i]) == int(x.astype(np.int64).sum())
        assert int(narrow[i]) == int(np.sum(x, dtype=np.uint8))  # wraps, as NumPy's
    with pytest.raises(sluice.SluiceError, match=r"reductions.sum.*axes.*out of range"):
        run(lambda: fn.reductions.sum(src(data), axes=[2]))
    with pytest.raises(sluice.SluiceError, match=r"reductions.sum.*dtype"):
        run(lambda: fn.reductions.sum(src(data), dtype=types.INT16))


def test_element_extract_one_output_per_index():
    data = batch([(4, 2, 3), (3, 5, 3), (5, 1, 3)], np.int16)
    outs = run(lambda: fn.element_extract(src(data, "FHW"), element_map=[2, 0]))
    assert len(outs) == 2
    (e2, l2), (e0, l0) = outs
    assert l2 == "HW" and l0 == "HW"
    for x, a, b in zip(data, e2, e0):
        np.testing.assert_array_equal(a, x[2])
        np.testing.assert_array_equal(b, x[0])
    with pytest.raises(sluice.SluiceError, match=r"element_extract.*element_map.*out of range"):
        run(lambda: fn.element_extract(src(data, "FHW"), element_map=[4]))
