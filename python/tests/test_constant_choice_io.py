"""constant, full, full_like, zeros/ones(_like), cast_like, io.file.read and random.choice against
NumPy, plus positional Python constants turned into `constant` nodes (DALI's types.Constant)."""
import numpy as np
import pytest

import sluice
from sluice import fn
from sluice.errors import SluiceError


def run(build, batch_size=3, threads=2, seed=1, iterations=1):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, device_id=None, seed=seed)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    res = []
    for _ in range(iterations):
        res.append([[np.array(o.at(i)) for i in range(len(o))] for o in pipe.run()])
    return res if iterations > 1 else res[0]


def src(data, layout=""):
    return fn.external_source(source=lambda: data, layout=layout)


def test_constant_idata_fdata_shape_dtype():
    ints, flts = run(lambda: [fn.constant(idata=[1, 2, 3, 4, 5, 6], shape=[2, 3]), fn.constant(fdata=[0.5, 1.5])])
    for x in ints:
        np.testing.assert_array_equal(x, np.arange(1, 7, dtype=np.int32).reshape(2, 3))
        assert x.dtype == np.int32
    for x in flts:
        np.testing.assert_array_equal(x, np.array([0.5, 1.5], np.float32))
    (b,), = run(lambda: fn.constant(idata=7, shape=[2, 2], dtype=sluice.types.UINT8), batch_size=1)
    np.testing.assert_array_equal(b, np.full((2, 2), 7, np.uint8))


def test_constant_errors_name_operator_and_argument():
    with pytest.raises(SluiceError, match=r"(?s)constant.*(idata|fdata)"):
        run(lambda: fn.constant())
    with pytest.raises(SluiceError, match=r"(?s)constant.*idata"):
        run(lambda: fn.constant(idata=[1, 2, 3], shape=[2, 2]))


def test_zeros_ones_full_like_numpy():
    data = [np.arange(6, dtype=np.float32).reshape(2, 3)] * 2
    fill = [np.array([[1, 2, 3]], np.int16), np.array([[7], [8]], np.int16)]
    z, o, zl, ol, f, fl = run(lambda: [
        fn.zeros(shape=[2, 3]), fn.ones(shape=[4], dtype=sluice.types.FLOAT),
        fn.zeros_like(src(data)), fn.ones_like(src(data), dtype=sluice.types.UINT8),
        fn.full(src(fill), shape=[2, 3]), fn.full_like(src(data), src(fill))], batch_size=2)
    np.testing.assert_array_equal(z[0], np.zeros((2, 3), np.int32))
    assert z[0].dtype == np.int32
    np.testing.assert_array_equal(o[1], np.ones(4, np.float32))
    np.testing.assert_array_equal(zl[0], np.zeros_like(data[0]))
    assert zl[0].dtype == np.float32
    np.testing.assert_array_equal(ol[1], np.ones((2, 3), np.uint8))
    for k in range(2):
        np.testing.assert_array_equal(f[k], np.full((2, 3), fill[k]))
        assert f[k].dtype == np.int16
        np.testing.assert_array_equal(fl[k], np.full(data[k].shape, fill[k]))
        assert fl[k].dtype == np.float32  # data_like's type, as DALI 2.4
    with pytest.raises(SluiceError, match=r"(?s)full.*fill_value"):
        run(lambda: fn.full(src([np.arange(4, dtype=np.float32)]), shape=[2, 3]), batch_size=1)


def test_full_like_takes_data_likes_type_as_dali():
    # DALI 2.4 (dali_goldens cov_cast_like_zeros_like): full_like(int32 data, 2.5) is int32 3s; the
    # fill value is converted as cast converts: half away from zero, saturated.
    ints, bytes_ = [np.zeros(3, np.int32)], [np.zeros(2, np.uint8)]
    fill = [np.float32([-2.5])]
    (a,), (b,), (c,) = run(lambda: [fn.full_like(src(ints), src(fill)), fn.full_like(src(ints), 2.5),
                                    fn.full_like(src(bytes_), src([np.float32([300.0])]))], batch_size=1)
    assert a.dtype == b.dtype == np.int32 and c.dtype == np.uint8
    np.testing.assert_array_equal(a, [-3, -3, -3])
    np.testing.assert_array_equal(b, [3, 3, 3])
    np.testing.assert_array_equal(c, [255, 255])


def test_cast_like_matches_numpy():
    x = [np.array([1.5, 2.5, -3.7, 1000.0, -1000.0], np.float32)]
    like = [np.zeros(1, np.int8)]
    (c,), = run(lambda: fn.cast_like(src(x), src(like)), batch_size=1)
    # cast's rule (DALI 2.4's CPU cast): round half away from zero, then saturate.
    half_away = np.sign(x[0]) * np.floor(np.abs(x[0]) + 0.5)
    np.testing.assert_array_equal(c, np.clip(half_away, -128, 127).astype(np.int8))


def path_batch(paths):
    return [np.frombuffer(p.encode(), dtype=np.uint8) for p in paths]


def test_io_file_read_reads_files(tmp_path):
    contents = [b"hello", bytes(range(256)) * 3, b""]
    paths = []
    for i, c in enumerate(contents):
        p = tmp_path / f"file{i}.bin"
        p.write_bytes(c)
        paths.append(str(p))
    for kwargs in ({}, {"dont_use_mmap": True}, {"use_o_direct": True}):
        (got,) = run(lambda: fn.io.file.read(src(path_batch(paths)), **kwargs))
        for g, c in zip(got, contents):
            assert g.dtype == np.uint8 and g.ndim == 1
            assert g.tobytes() == c


def test_io_file_read_missing_file_names_path(tmp_path):
    missing = str(tmp_path / "no_such_file.jpg")
    with pytest.raises(SluiceError, match="no_such_file.jpg"):
        run(lambda: fn.io.file.read(src(path_batch([missing]))), batch_size=1)


def test_random_choice_frequencies_match_p():
    p = [0.1, 0.2, 0.3, 0.4]
    a = [np.array([10, 20, 30, 40], np.float32)]
    (x,), = run(lambda: fn.random.choice(src(a), p=p, shape=[20000]), batch_size=1)
    assert x.dtype == np.float32 and x.shape == (20000,)
    counts = np.array([(x == v).sum() for v in (10, 20, 30, 40)])
    expected = 20000 * np.array(p)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 16.27  # 3 degrees of freedom, p = 0.001


def test_random_choice_python_constants_as_input():
    # DALI's fn.random.choice(5) and fn.random.choice([1, 2, 3]): positional constants.
    r, l, one = run(lambda: [fn.random.choice(5, shape=[500]), fn.random.choice([1, 2, 3], shape=[500]),
                             fn.random.choice(np.array([7.5, 8.5]))], batch_size=2)
    for k in range(2):
        assert r[k].dtype == np.int32 and set(r[k].tolist()) == {0, 1, 2, 3, 4}
        assert set(l[k].tolist()) == {1, 2, 3}
        assert one[k].shape == () and one[k].dtype == np.float32 and float(one[k]) in (7.5, 8.5)


def test_random_choice_same_for_one_and_two_threads():
    a = run(lambda: fn.random.choice(10, shape=[16]), batch_size=8, threads=1, iterations=3)
    b = run(lambda: fn.random.choice(10, shape=[16]), batch_size=8, threads=2, iterations=3)
    for x, y in zip(a, b):
        for s, t in zip(x[0], y[0]):
            np.testing.assert_array_equal(s, t)
    assert any(not np.array_equal(a[0][0][0], a[1][0][0]) for _ in [0])  # differs between iterations


def test_random_choice_errors_name_operator_and_argument():
    with pytest.raises(SluiceError, match=r"(?s)random.choice.*p"):
        run(lambda: fn.random.choice([1, 2, 3], p=[0.5, 0.5]), batch_size=1)
    with pytest.raises(TypeError, match="DataNode"):
        fn.random.choice("abc")
