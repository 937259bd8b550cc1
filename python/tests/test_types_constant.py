"""types.Constant (DALI's): scalars inline into arithmetic with their type, arrays and shaped values
become constant nodes; NumPy scalars on the left of an operator defer to the DataNode."""
import numpy as np
import pytest

from sluice import fn, pipeline_def, types


def run(graph):
    @pipeline_def(batch_size=2, num_threads=1, device_id=None, seed=1)
    def pipe():
        x = fn.external_source(source=lambda: [np.array([1, 200], np.uint8), np.array([7, 9], np.uint8)])
        return graph(x)

    p = pipe()
    p.build()
    return [[np.asarray(o[i]) for i in range(len(o))] for o in p.run()], p


def test_scalar_constant_keeps_its_type():
    # DALI returns a ScalarConstant (value and type) for a scalar without shape, layout or device
    c = types.Constant(255, dtype=types.UINT8)
    assert isinstance(c, types.ScalarConstant) and c.value == 255 and c.dtype == types.UINT8
    assert types.Constant(3).dtype == types.INT32 and types.Constant(0.5).dtype == types.FLOAT
    (inv, wide), _ = run(lambda x: (types.Constant(255, dtype=types.UINT8) - x, types.Constant(255) - x))
    assert inv[0].dtype == np.uint8 and inv[0].tolist() == [254, 55]
    assert wide[0].dtype == np.int32 and wide[1].tolist() == [248, 246]  # DALI's promotion: uint8 with int32


def test_numpy_scalar_on_the_left_defers_to_the_node():
    (out,), _ = run(lambda x: (np.float32(0.5) * x,))
    assert out[0].dtype == np.float32 and out[0].tolist() == [0.5, 100.0]


def test_array_constant_is_a_node_with_shape_type_and_layout():
    (c, m), _ = run(lambda x: (types.Constant([[1, 2], [3, 4]], layout="HW"),
                               x * types.Constant(np.array([0.5, 2.0], np.float32))))
    assert c[0].dtype == np.int32 and c[1].tolist() == [[1, 2], [3, 4]]
    assert m[0].tolist() == [0.5, 400.0] and m[1].tolist() == [3.5, 18.0]
    (s,), _ = run(lambda x: (types.Constant(7, shape=[2, 2], dtype=types.INT16),))
    assert s[0].dtype == np.int16 and s[0].tolist() == [[7, 7], [7, 7]]


def test_constant_errors():
    with pytest.raises(TypeError, match="types.Constant"):
        types.Constant("text")
    with pytest.raises(ValueError, match="device"):
        types.Constant(1, device="gpu")
