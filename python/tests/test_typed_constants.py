"""DALI's typed scalar constants: types.Constant(15).float32(), .uint8(), .int16(), ... (ScalarConstant)
in arithmetic with DataNodes (the result type follows DALI's promotion with the constant's type), as
operator inputs (a 0-d constant of that type) and as arguments (their value)."""
import numpy as np
import pytest

from sluice import fn, pipeline_def, types

DATA = [np.array([0, 7, 200, 255], np.uint8), np.array([1, 2, 3, 4], np.uint8)]
I16 = [np.array([-300, 5, 1000], np.int16), np.array([7, -8, 9], np.int16)]


def run(graph):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    def pipe():
        x = fn.external_source(source=lambda: [d.copy() for d in DATA])
        y = fn.external_source(source=lambda: [d.copy() for d in I16])
        return graph(x, y)

    p = pipe()
    p.build()
    return [[np.asarray(o[i]) for i in range(len(o))] for o in p.run()]


METHODS = {"bool": types.BOOL, "int8": types.INT8, "int16": types.INT16, "int32": types.INT32,
           "int64": types.INT64, "uint8": types.UINT8, "uint16": types.UINT16, "uint32": types.UINT32,
           "uint64": types.UINT64, "float16": types.FLOAT16, "float32": types.FLOAT, "float64": types.FLOAT64}


def test_every_method_gives_its_type_and_converts_the_value():
    for method, dtype in METHODS.items():
        c = getattr(types.Constant(15), method)()
        assert isinstance(c, types.ScalarConstant) and c.dtype == dtype
        assert c.value == (True if dtype == types.BOOL else 15)
        assert type(c.value) is (bool if dtype == types.BOOL else float if "float" in method else int)
    assert types.Constant(2.75).int16().value == 2 and types.Constant(3).float32().value == 3.0
    assert types.Constant(True).dtype == types.BOOL and types.Constant(1.5).dtype == types.FLOAT
    assert types.Constant(np.uint16(9)).dtype == types.UINT16           # a NumPy scalar keeps its type
    assert types.Constant(4, shape=[1]).dtype == types.INT32             # DALI's legacy scalar shape
    assert str(types.Constant(15).uint8()) == f"15:{types.UINT8}" and repr(types.Constant(15).uint8()) == "15"
    assert types.Constant(3).uint8() == types.Constant(3).uint8() != types.Constant(3).int8()


def test_python_conversions_follow_dali():
    assert int(types.Constant(7).int16()) == 7 and bool(types.Constant(0).uint8()) is False
    assert float(types.Constant(7).float16()) == 7.0
    with pytest.raises(TypeError, match="float types"):
        float(types.Constant(7))
    with pytest.raises(TypeError, match="bool or int types"):
        int(types.Constant(7).float32())
    with pytest.raises(TypeError, match="scalar value"):
        types.ScalarConstant("seven")


def test_typed_constants_in_arithmetic():
    graph = lambda x, y: (  # noqa: E731
        x + types.Constant(250).uint8(),        # uint8 with uint8: stays uint8 (wraps)
        x * types.Constant(15).float32(),       # float32
        x + types.Constant(1).int16(),          # uint8 with int16 -> int16
        types.Constant(3).int8() * y,           # int8 with int16 -> int16, constant on the left
        y / types.Constant(2).float64(),        # float64
        x == types.Constant(7).uint8(),         # a comparison: bool
        x - types.Constant(0.5).float16(),      # float16
    )
    wrap, scaled, widened, left, halves, equal, half = run(graph)
    for i, (x, y) in enumerate(zip(DATA, I16)):
        for got, want in ((wrap[i], x + np.uint8(250)), (scaled[i], x * np.float32(15)),
                          (widened[i], x.astype(np.int16) + np.int16(1)), (left[i], np.int8(3) * y),
                          (halves[i], y / np.float64(2)), (equal[i], x == 7),
                          (half[i], x.astype(np.float16) - np.float16(0.5))):
            assert got.dtype == want.dtype, (got.dtype, want.dtype)
            np.testing.assert_array_equal(got, want)


def test_typed_constants_as_inputs_and_arguments():
    graph = lambda x, y: (  # noqa: E731
        fn.cast(types.Constant(3).int16(), dtype=types.INT32),     # an input: a 0-d int16 constant
        fn.expand_dims(types.Constant(7).uint16(), axes=[0]),
        fn.pad(x, fill_value=types.Constant(9).uint8(), shape=[6]),  # an argument: its value
    )
    c, e, padded = run(graph)
    assert c[0].dtype == np.int32 and c[0].shape == () and int(c[0]) == 3
    assert e[0].dtype == np.uint16 and e[0].tolist() == [7]
    for i, x in enumerate(DATA):
        np.testing.assert_array_equal(padded[i], np.concatenate([x, [9, 9]]).astype(np.uint8))


def test_unsigned_32_bit_constants():
    want = np.uint32  # DALI's promotion: uint8 with uint32
    (out,) = run(lambda x, y: (x + types.Constant(5).uint32(),))
    assert out[0].dtype == want and out[0].tolist() == [5, 12, 205, 260]
