"""Arithmetic between DataNodes (DALI's mathematical expressions) and sluice.math: every binary
operator over pairs of numeric types against NumPy with DALI's promotion table, per-sample scalars,
fusion of a chain into one arithmetic.expression operator, math functions, errors."""
import numpy as np
import pytest

import sluice
import sluice.math as smath
from sluice import fn, types

TYPES = [np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64, np.bool_]
SIGNED = {np.int8, np.int16, np.int32, np.int64}


def dali_promote(a, b):
    """DALI's type promotion table (bool below every other type)."""
    a, b = np.dtype(a).type, np.dtype(b).type
    if a == b:
        return a
    fa, fb = np.issubdtype(a, np.floating), np.issubdtype(b, np.floating)
    if fa and fb:
        return a if np.dtype(a).itemsize >= np.dtype(b).itemsize else b
    if fa or fb:
        return a if fa else b
    if a == np.bool_:
        return b
    if b == np.bool_:
        return a
    if (a in SIGNED) == (b in SIGNED):
        return a if np.dtype(a).itemsize >= np.dtype(b).itemsize else b
    s, u = (a, b) if a in SIGNED else (b, a)
    if np.dtype(s).itemsize <= np.dtype(u).itemsize:
        return {1: np.int16, 2: np.int32, 4: np.int64, 8: np.int64}[np.dtype(u).itemsize]
    return s


def run(expr, *arrays_per_input, batch_size=2):
    """Runs expr(*inputs) over external sources fed with the given per-sample arrays; returns the
    output samples, the output dtype and the pipeline."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, seed=0)
    with pipe:
        ins = [fn.external_source(name=f"in{k}") for k in range(len(arrays_per_input))]
        pipe.set_outputs(expr(*ins))
    pipe.build()
    for k, arrs in enumerate(arrays_per_input):
        pipe.feed_input(f"in{k}", list(arrs))
    out = pipe.run()[0]
    return [np.asarray(out[i]) for i in range(len(out))], out.dtype, pipe


def values(t, right=False):
    t = np.dtype(t).type
    if t == np.bool_:
        return np.array([[True, False, True], [False, True, True]]) if not right else \
            np.array([[True, True, False], [False, True, False]])
    if right:
        v = np.array([[1, 2, 3], [4, 5, 7]])
    else:
        v = np.array([[-7, -3, 0], [5, 9, 12]]) if t in SIGNED or np.issubdtype(t, np.floating) else \
            np.array([[7, 3, 0], [5, 9, 12]])
    return v.astype(t)


def dali_floordiv(a, b):
    """DALI's `//` (checked against DALI 2.4): integers truncate toward zero (C++), floats divide."""
    if np.issubdtype(np.result_type(a, b), np.floating):
        return np.divide(a, b)
    q = np.floor_divide(a, b)
    return np.where((np.remainder(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q).astype(q.dtype)


ARITH = {
    "add": (lambda a, b: a + b, np.add), "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply), "div": (lambda a, b: a / b, np.divide),
    "floordiv": (lambda a, b: a // b, dali_floordiv), "mod": (lambda a, b: a % b, np.fmod),  # C++'s, as DALI
    "pow": (lambda a, b: a ** b, np.power),
    "eq": (lambda a, b: a == b, np.equal), "ne": (lambda a, b: a != b, np.not_equal),
    "lt": (lambda a, b: a < b, np.less), "le": (lambda a, b: a <= b, np.less_equal),
    "gt": (lambda a, b: a > b, np.greater), "ge": (lambda a, b: a >= b, np.greater_equal),
    "and": (lambda a, b: a & b, np.bitwise_and), "or": (lambda a, b: a | b, np.bitwise_or),
    "xor": (lambda a, b: a ^ b, np.bitwise_xor),
}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
BITWISE = {"and", "or", "xor"}


def cases():
    for op in ARITH:
        for ta in TYPES:
            for tb in TYPES:
                is_bool = ta == np.bool_ or tb == np.bool_
                floating = np.issubdtype(ta, np.floating) or np.issubdtype(tb, np.floating)
                if op in BITWISE and floating:
                    continue
                if op in ("div", "floordiv", "mod") and tb == np.bool_:
                    continue  # division by False
                if op in ("sub", "pow") and is_bool:
                    continue  # NumPy has no bool subtraction; pow of bools is not meaningful
                yield op, ta, tb


@pytest.mark.parametrize("op,ta,tb", list(cases()),
                         ids=lambda x: x if isinstance(x, str) else np.dtype(x).name)
def test_binary_operator_matches_numpy_with_dali_promotion(op, ta, tb):
    expr, ufunc = ARITH[op]
    a, b = values(ta), values(tb, right=True)
    if op == "pow":
        b = (b % 4).astype(tb)
    out, dtype, _ = run(expr, [a, a[::-1].copy()], [b, b[::-1].copy()])
    r = dali_promote(ta, tb)
    if op in COMPARISONS:
        want_type = np.bool_
    elif op == "div":
        want_type = r if np.issubdtype(r, np.floating) else np.float32
    else:
        want_type = r
    ctype = want_type if op not in COMPARISONS else r
    for got, x, y in zip(out, [a, a[::-1]], [b, b[::-1]]):
        assert got.dtype == want_type, (op, ta, tb, got.dtype)
        with np.errstate(all="ignore"):
            want = ufunc(x.astype(ctype), y.astype(ctype)).astype(want_type)
        if np.issubdtype(want_type, np.floating):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t", [np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64])
def test_python_constants_are_int32_and_float32_as_in_dali(t):
    # DALI types a Python int as INT32 and a float as FLOAT, and promotes with its table:
    # uint8 * 2 is int32 (no wrap at 256), float16 * 0.5 is float32, int64 + 1 stays int64.
    a = values(t)
    out, dtype, _ = run(lambda x: x * 2 + 1, [a, a])
    want_int = np.result_type(t, np.int32) if np.dtype(t).kind in "iu" else t
    assert out[0].dtype == want_int
    np.testing.assert_array_equal(out[0], (a.astype(want_int) * 2 + 1))
    out, _, _ = run(lambda x: x * 0.5, [a, a])
    want_float = np.float64 if t == np.float64 else np.float32
    assert out[0].dtype == want_float
    np.testing.assert_allclose(out[0], a.astype(want_float) * 0.5)
    big, _, _ = run(lambda x: x + 2**40, [a, a])  # beyond int32: INT64
    assert big[0].dtype == (np.int64 if np.dtype(t).kind in "iu" else t)


def test_typed_constants_keep_the_tensor_type():
    a = values(np.uint8)
    out, _, _ = run(lambda x: types.Constant(255, dtype=types.UINT8) - x, [a, a])
    assert out[0].dtype == np.uint8
    np.testing.assert_array_equal(out[0], 255 - a)


def test_per_sample_scalars_broadcast():
    a = [np.arange(6, dtype=np.float32).reshape(2, 3), np.arange(8, dtype=np.float32).reshape(2, 4)]
    s = [np.array([2], np.int32), np.array([-1], np.int32)]
    out, _, _ = run(lambda x, y: x * y + y, a, s)
    for got, x, y in zip(out, a, s):
        assert got.dtype == np.float32 and got.shape == x.shape
        np.testing.assert_allclose(got, x * y[0] + y[0])
    out, _, _ = run(lambda y, x: y - x, s, a)  # the scalar first: the shape is still the tensor's
    for got, x, y in zip(out, a, s):
        assert got.shape == x.shape
        np.testing.assert_allclose(got, y[0] - x)


def test_chain_of_five_operations_is_one_operator():
    a = [np.arange(12, dtype=np.float32).reshape(3, 4)] * 2
    b = [np.full((3, 4), 2, np.float32)] * 2
    c = [np.ones((3, 4), np.int16)] * 2
    out, _, pipe = run(lambda x, y, z: ((x + y) * 2 - z) / y + smath.sqrt(x), a, b, c)
    np.testing.assert_allclose(out[0], ((a[0] + b[0]) * 2 - c[0]) / b[0] + np.sqrt(a[0]), rtol=1e-6)
    stats = pipe.executor_statistics()
    arith = [k for k, v in stats.items() if v["op"].startswith("arithmetic")]
    assert len(arith) == 1, stats.keys()


def test_a_node_used_twice_is_computed_correctly_in_both_places():
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, seed=0)
    with pipe:
        x = fn.external_source(name="x")
        y = x + 1
        z = y * y - fn.cast(y, dtype=sluice.types.FLOAT)  # y is read by cast (materialised) and inlined
        pipe.set_outputs(y, z)
    pipe.build()
    a = np.arange(4, dtype=np.int32)
    pipe.feed_input("x", [a])
    y, z = pipe.run()
    np.testing.assert_array_equal(np.asarray(y[0]), a + 1)
    np.testing.assert_allclose(np.asarray(z[0]), (a + 1) ** 2 - (a + 1.0))


UNARY = {
    "abs": np.abs, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "exp": np.exp, "log": np.log, "log2": np.log2,
    "log10": np.log10, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh,
}
DOMAIN = {"sqrt": (0.1, 9), "rsqrt": (0.1, 9), "log": (0.1, 9), "log2": (0.1, 9), "log10": (0.1, 9),
          "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atanh": (-0.9, 0.9), "acosh": (1.1, 9)}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("t", [np.float32, np.float64])
def test_math_unary_functions(name, t):
    lo, hi = DOMAIN.get(name, (-3, 3))
    a = np.linspace(lo, hi, 12).astype(t).reshape(3, 4)
    out, _, _ = run(getattr(smath, name), [a])
    assert out[0].dtype == t
    np.testing.assert_allclose(out[0], UNARY[name](a.astype(np.float64)).astype(t), rtol=1e-5, atol=1e-6)


def test_math_functions_of_integers_and_promotion():
    a = np.array([[-4, 1, 9]], np.int32)
    b = np.array([[2, 3, 1]], np.uint8)
    out, _, _ = run(smath.abs, [a])
    assert out[0].dtype == np.int32 and out[0].tolist() == [[4, 1, 9]]
    out, _, _ = run(lambda x: smath.sqrt(smath.abs(x)), [a])
    assert out[0].dtype == np.float32
    np.testing.assert_allclose(out[0], np.sqrt(np.abs(a)))
    for f, ref in [(smath.min, np.minimum), (smath.max, np.maximum), (smath.pow, np.power)]:
        out, _, _ = run(f, [a], [b])
        assert out[0].dtype == np.int32
        np.testing.assert_array_equal(out[0], ref(a, b.astype(np.int32)))
    out, _, _ = run(smath.fpow, [a], [b])
    assert out[0].dtype == np.float32
    np.testing.assert_allclose(out[0], np.power(a.astype(np.float32), b))
    out, _, _ = run(smath.atan2, [a], [b])
    np.testing.assert_allclose(out[0], np.arctan2(a, b), rtol=1e-6)
    out, _, _ = run(lambda x: smath.clamp(x, 0, 5), [a])
    assert out[0].dtype == np.int32 and out[0].tolist() == [[0, 1, 5]]
    u8 = np.array([[0, 100, 250]], np.uint8)
    out, _, _ = run(lambda x: smath.clamp(x * 1.25, 0, 255), [u8])
    assert out[0].dtype == np.float32
    np.testing.assert_allclose(out[0], np.clip(u8 * 1.25, 0, 255))


def test_unary_minus_and_comparison_chain():
    a = np.array([[1, -2, 3]], np.int16)
    out, _, _ = run(lambda x: (-x > 0) | (x == 3), [a])
    assert out[0].dtype == np.bool_ and out[0].tolist() == [[False, True, True]]


def test_shape_mismatch_names_operator_and_shapes():
    a = [np.zeros((2, 3), np.float32)]
    b = [np.zeros((3, 2), np.float32)]
    with pytest.raises(Exception, match=r"arithmetic\.expression.*\(2, 3\).*\(3, 2\)"):
        run(lambda x, y: x + y, a, b, batch_size=1)


def test_bitwise_on_floats_is_an_error_naming_the_argument():
    a = [np.zeros((2,), np.float32)]
    with pytest.raises(Exception, match="arithmetic.expression.*expression.*bitand.*float32"):
        run(lambda x, y: x & y, a, a, batch_size=1)


def test_bad_expression_is_rejected_at_the_call():
    with pytest.raises(sluice.ArgumentError, match="expression"):
        fn.arithmetic.expression(fn.testing.counter(), expression="add(&0,")
    with pytest.raises(sluice.ArgumentError, match="unknown operation 'frobnicate'"):
        fn.arithmetic.expression(fn.testing.counter(), expression="frobnicate(&0)")


def test_math_needs_a_data_node():
    with pytest.raises(TypeError, match="DataNode"):
        smath.sqrt(4.0)
