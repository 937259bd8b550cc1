"""sluice.types: DALI's names, and their conversion to the strings the C++ schemas take."""
import numpy as np

from sluice import types


def test_dali_names_map_to_schema_strings():
    conv = types.to_schema_value
    assert conv(types.FLOAT) == "float32" and conv(types.FLOAT16) == "float16"
    assert conv(types.UINT8) == "uint8" and conv(types.INT32) == "int32"
    assert conv(types.RGB) == "RGB" and conv(types.BGR) == "BGR" and conv(types.GRAY) == "GRAY"
    assert conv(types.NCHW) == "CHW" and conv(types.NHWC) == "HWC"
    assert [conv(t) for t in (types.INTERP_NN, types.INTERP_LINEAR, types.INTERP_CUBIC, types.INTERP_LANCZOS3,
                              types.INTERP_TRIANGULAR, types.INTERP_GAUSSIAN)] == \
        ["NN", "LINEAR", "CUBIC", "LANCZOS3", "TRIANGULAR", "GAUSSIAN"]
    assert conv(np.float32) == "float32" and conv(np.dtype("int16")) == "int16"
    assert conv([types.UINT8, np.float64]) == ["uint8", "float64"]
    # Numbers, lists and NumPy values go to the C++ core unchanged (it converts them by type).
    value = (np.int64(3), 2.5)
    assert conv(value) is value


def test_data_type_enum():
    assert int(types.DALIDataType.FLOAT) == 9 and types.FLOAT is types.DALIDataType.FLOAT
    assert types.FLOAT.to_numpy() == np.float32
    assert types.dtype_from_name("uint8") is types.UINT8
