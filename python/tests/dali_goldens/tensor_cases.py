"""Arithmetic, type promotion, math functions and tensor utilities whose outputs real DALI 2.4 recorded
(python/tests/dali_goldens/tensor.npz, by scripts/record_dali_goldens.py tensor); compared by
test_dali_goldens_tensor.py. Each case is a function of (fn, types, math, x): DALI's or Sluice's
modules and the input DataNode, a batch of float32 arrays (INPUTS) with negatives, zeros, fractions,
halves (ties) and values past the integer types' ranges.
"""
import numpy as np


def inputs():
    rng = np.random.default_rng(11)
    base = np.array([0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.0, -7.0, 100.7, -100.7, 255.5, 256.0, -129.0,
                     40000.0, -40000.0, 3e9, -3e9, 1e-3, 7.25], np.float32)
    return [base.reshape(4, 5), rng.uniform(-300, 300, (3, 7)).astype(np.float32),
            np.round(rng.uniform(-20, 20, (2, 3))).astype(np.float32), np.array([[5.0, -5.0]], np.float32)]


def _ints(fn, types, x):
    return fn.cast(fn.cast(x, dtype=types.INT32), dtype=types.INT32)


CASES = {
    "cast_saturating": lambda fn, types, math, x: [fn.cast(x, dtype=t) for t in (
        types.UINT8, types.INT8, types.UINT16, types.INT16, types.INT32, types.INT64, types.FLOAT16, types.FLOAT64)],
    "promotion_uint8_int16": lambda fn, types, math, x: [
        fn.cast(x, dtype=types.UINT8) + fn.cast(x, dtype=types.INT16),
        fn.cast(x, dtype=types.UINT8) * fn.cast(x, dtype=types.INT8),
        fn.cast(x, dtype=types.UINT16) - fn.cast(x, dtype=types.UINT8)],
    "promotion_with_floats": lambda fn, types, math, x: [
        fn.cast(x, dtype=types.INT32) + x, fn.cast(x, dtype=types.UINT8) * x,
        fn.cast(x, dtype=types.FLOAT64) - x],
    "python_scalars": lambda fn, types, math, x: [
        fn.cast(x, dtype=types.INT32) * 3, fn.cast(x, dtype=types.INT32) + 2.5, x * 2, 1 - x,
        fn.cast(x, dtype=types.INT16) + 7],
    "division": lambda fn, types, math, x: [
        fn.cast(x, dtype=types.INT32) / 4, x / 3, fn.cast(x, dtype=types.INT32) // 3,
        fn.cast(x, dtype=types.INT32) // -3, x // 2.0],
    "modulo": lambda fn, types, math, x: [fn.cast(x, dtype=types.INT32) % 5, fn.cast(x, dtype=types.INT32) % -5,
                                          x % 2.5],
    "comparisons": lambda fn, types, math, x: [x > 0.5, x <= 2.5, x == 3, fn.cast(x, dtype=types.INT32) != 0,
                                               fn.cast(x, dtype=types.UINT8) >= fn.cast(x, dtype=types.INT8)],
    "bitwise": lambda fn, types, math, x: [fn.cast(x, dtype=types.INT32) & 6, fn.cast(x, dtype=types.INT32) | 9,
                                           fn.cast(x, dtype=types.UINT8) ^ fn.cast(x, dtype=types.UINT8)],
    "unary": lambda fn, types, math, x: [-x, -fn.cast(x, dtype=types.UINT8), +fn.cast(x, dtype=types.INT16)],
    "pow": lambda fn, types, math, x: [x ** 2, fn.cast(x, dtype=types.INT32) ** 2, math.pow(math.abs(x), 0.5)],
    "math_functions": lambda fn, types, math, x: [
        math.sqrt(math.abs(x)), math.rsqrt(math.abs(x) + 1), math.cbrt(x), math.exp(x / 100), math.log(math.abs(x) + 1),
        math.log2(math.abs(x) + 1), math.log10(math.abs(x) + 1), math.sin(x), math.cos(x), math.tan(x / 100),
        math.asin(math.clamp(x / 300, -1, 1)), math.acos(math.clamp(x / 300, -1, 1)), math.atan(x),
        math.sinh(x / 100), math.cosh(x / 100), math.tanh(x), math.atan2(x, x + 1), math.floor(x), math.ceil(x),
        math.abs(fn.cast(x, dtype=types.INT16)), math.fabs(x), math.clamp(x, -2, 2), math.min(x, 1.5),
        math.max(fn.cast(x, dtype=types.INT32), 2)],
    "reductions": lambda fn, types, math, x: [
        fn.reductions.sum(x), fn.reductions.sum(fn.cast(x, dtype=types.UINT8), axes=0),
        fn.reductions.mean(x, axes=[0], keep_dims=True), fn.reductions.min(fn.cast(x, dtype=types.INT16)),
        fn.reductions.max(x, axes=-1), fn.reductions.mean_square(x), fn.reductions.rms(x, axes=0),
        fn.reductions.sum(fn.cast(x, dtype=types.INT8), dtype=types.INT64)],
    "tensor_utilities": lambda fn, types, math, x: [
        fn.reshape(x, shape=[-1]), fn.expand_dims(x, axes=[0]),
        fn.squeeze(fn.expand_dims(x, axes=[1]), axes=[1]), fn.shapes(x), fn.stack(x, x * 2, axis=0),
        fn.cat(x, -x, axis=0), fn.one_hot(fn.cast(math.abs(x) % 4, dtype=types.INT32), num_classes=4),
        fn.transpose(x, perm=[1, 0]), fn.cast_like(x, fn.cast(x, dtype=types.INT16))],
}
