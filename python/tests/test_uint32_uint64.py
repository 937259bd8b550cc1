"""UINT32 and UINT64 tensors (DALI's types): fed through external_source, cast to and from, reinterpreted,
reduced, compared; arithmetic on uint32 with DALI's promotion; uint64 arithmetic refused with a clear
error (integers are computed in int64, where values from 2^63 on would be wrong)."""
import numpy as np
import pytest

import sluice
from sluice import fn, types


def run(build, *batches):
    pipe = sluice.Pipeline(batch_size=len(batches[0]), num_threads=2, device_id=None, seed=3)
    with pipe:
        nodes = [fn.external_source(source=(lambda b=b: b)) for b in batches]
        outs = build(*nodes)
        pipe.set_outputs(*(outs if isinstance(outs, tuple) else (outs,)))
    pipe.build()
    return [[np.array(o.at(i)) for i in range(len(o))] for o in pipe.run()]


U32 = [np.array([0, 1, 2**31, 2**32 - 1], np.uint32), np.array([7, 2**20], np.uint32)]
U64 = [np.array([0, 2**40, 2**64 - 1], np.uint64), np.array([5], np.uint64)]


@pytest.mark.parametrize("data", [U32, U64], ids=["uint32", "uint64"])
def test_fed_and_returned_unchanged(data):
    got, = run(lambda x: x, data)
    for g, d in zip(got, data):
        assert g.dtype == d.dtype
        np.testing.assert_array_equal(g, d)


def test_types_and_dtype_names():
    assert types.UINT32.sluice_name == "uint32" and types.UINT64.sluice_name == "uint64"
    assert types.to_numpy_type(types.UINT32) == np.uint32


@pytest.mark.parametrize("src,dst", [(np.int64, types.UINT32), (np.float32, types.UINT32),
                                     (np.int32, types.UINT64), (np.uint32, types.INT16), (np.uint64, types.FLOAT)])
def test_cast_saturates_as_numpy_clip(src, dst):
    vals = np.array([-5, 0, 3, 70000, 2**33], np.float64)
    lim = np.iinfo(src) if np.dtype(src).kind in "iu" else np.finfo(src)
    data = [np.clip(vals, lim.min, lim.max).astype(src)]
    got, = run(lambda x: fn.cast(x, dtype=dst), data)
    want_t = types.to_numpy_type(dst)
    info = np.iinfo(want_t) if np.dtype(want_t).kind in "iu" else None
    src_vals = data[0].astype(np.float64)
    want = (np.clip(np.round(src_vals), info.min, info.max) if info else src_vals).astype(want_t)
    assert got[0].dtype == want_t
    np.testing.assert_array_equal(got[0], want)


def test_reinterpret_float_bits_as_uint32():
    f = [np.array([1.0, -2.5, 0.0], np.float32)]
    got, = run(lambda x: fn.reinterpret(x, dtype=types.UINT32), f)
    np.testing.assert_array_equal(got[0], f[0].view(np.uint32))


def test_uint32_arithmetic_promotes_as_dali():
    a = [np.array([4000000000, 5], np.uint32)]
    b = [np.array([-1, 3], np.int32)]
    s, c, m = run(lambda x, y: (x + y, x > y, x * types.Constant(2).uint32()), a, b)
    assert s[0].dtype == np.int64  # int32 with uint32 -> int64
    np.testing.assert_array_equal(s[0], a[0].astype(np.int64) + b[0])
    np.testing.assert_array_equal(c[0], a[0].astype(np.int64) > b[0])
    assert m[0].dtype == np.uint32  # with a uint32 constant; a Python int (INT32) would make it int64
    np.testing.assert_array_equal(m[0], (a[0].astype(np.uint64) * 2).astype(np.uint32))  # wraps as uint32
    w, = run(lambda x: x * 2, a)
    assert w[0].dtype == np.int64
    np.testing.assert_array_equal(w[0], a[0].astype(np.int64) * 2)


def test_uint64_arithmetic_is_refused_with_a_reason():
    with pytest.raises(sluice.SluiceError, match="uint64.*cast it to int64 or float64"):
        run(lambda x: x + 1, U64)


def test_reductions_of_uint32():
    got, = run(lambda x: fn.reductions.max(x), U32)
    assert [int(g) for g in got] == [2**32 - 1, 2**20]
