"""DALI's type names (``types.FLOAT``, ``types.RGB``, ``types.INTERP_LINEAR``, ``types.NCHW``, ...).

The C++ schemas take plain strings ("float32", "RGB", "LINEAR", "CHW"); :func:`to_schema_value`
converts these enums (and NumPy dtypes) to them. Every other value goes to the C++ core as it is,
which converts it by its Python type and validates it against the schema.
"""
import enum

import numpy as np


class DALIDataType(enum.IntEnum):
    """Element types, numbered as in DALI. ``sluice_name`` is the name the C++ core uses."""

    NO_TYPE = -1
    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    UINT64 = 3
    INT8 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    FLOAT16 = 8
    FLOAT = 9
    FLOAT64 = 10
    BOOL = 11

    @property
    def sluice_name(self):
        name = _DTYPE_NAMES.get(self)
        if name is None:
            raise TypeError(f"Sluice has no tensors of type {self.name}")
        return name

    def to_numpy(self):
        return np.dtype(self.sluice_name)


_DTYPE_NAMES = {
    DALIDataType.UINT8: "uint8", DALIDataType.UINT16: "uint16", DALIDataType.INT8: "int8",
    DALIDataType.INT16: "int16", DALIDataType.INT32: "int32", DALIDataType.INT64: "int64",
    DALIDataType.FLOAT16: "float16", DALIDataType.FLOAT: "float32", DALIDataType.FLOAT64: "float64",
    DALIDataType.BOOL: "bool",
}
_DTYPE_BY_NAME = {v: k for k, v in _DTYPE_NAMES.items()}


def dtype_from_name(name):
    """The DALIDataType of a Sluice dtype name such as "float32"."""
    return _DTYPE_BY_NAME[name]


class DALIImageType(enum.IntEnum):
    RGB = 0
    BGR = 1
    GRAY = 2
    YCbCr = 3
    ANY_DATA = 4

    @property
    def sluice_name(self):
        return self.name


class DALIInterpType(enum.IntEnum):
    INTERP_NN = 0
    INTERP_LINEAR = 1
    INTERP_CUBIC = 2
    INTERP_LANCZOS3 = 3
    INTERP_TRIANGULAR = 4
    INTERP_GAUSSIAN = 5

    @property
    def sluice_name(self):
        return self.name[len("INTERP_"):]


class TensorLayout(str, enum.Enum):
    """Batch layouts as DALI spells them; the value is the per-sample layout the schemas take."""

    NCHW = "CHW"
    NHWC = "HWC"
    NFCHW = "FCHW"
    NFHWC = "FHWC"
    NCFHW = "CFHW"

    @property
    def sluice_name(self):
        return self.value


class PipelineAPIType(enum.Enum):
    BASIC = 0
    ITERATOR = 1
    SCHEDULED = 2


NO_TYPE = DALIDataType.NO_TYPE
UINT8 = DALIDataType.UINT8
UINT16 = DALIDataType.UINT16
UINT32 = DALIDataType.UINT32
UINT64 = DALIDataType.UINT64
INT8 = DALIDataType.INT8
INT16 = DALIDataType.INT16
INT32 = DALIDataType.INT32
INT64 = DALIDataType.INT64
FLOAT16 = DALIDataType.FLOAT16
FLOAT = DALIDataType.FLOAT
FLOAT32 = DALIDataType.FLOAT
FLOAT64 = DALIDataType.FLOAT64
BOOL = DALIDataType.BOOL

RGB = DALIImageType.RGB
BGR = DALIImageType.BGR
GRAY = DALIImageType.GRAY
YCbCr = DALIImageType.YCbCr
ANY_DATA = DALIImageType.ANY_DATA

INTERP_NN = DALIInterpType.INTERP_NN
INTERP_LINEAR = DALIInterpType.INTERP_LINEAR
INTERP_CUBIC = DALIInterpType.INTERP_CUBIC
INTERP_LANCZOS3 = DALIInterpType.INTERP_LANCZOS3
INTERP_TRIANGULAR = DALIInterpType.INTERP_TRIANGULAR
INTERP_GAUSSIAN = DALIInterpType.INTERP_GAUSSIAN

NCHW = TensorLayout.NCHW
NHWC = TensorLayout.NHWC
NFCHW = TensorLayout.NFCHW
NFHWC = TensorLayout.NFHWC
NCFHW = TensorLayout.NCFHW


def to_schema_value(value):
    """DALI's enums and NumPy dtypes (alone or in a list) as the strings the schemas take; any other
    value unchanged (the C++ core converts numbers, strings, lists and NumPy scalars and arrays)."""
    if isinstance(value, enum.Enum) and hasattr(value, "sluice_name"):
        return value.sluice_name
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return np.dtype(value).name
    if isinstance(value, (list, tuple)) and any(isinstance(v, (enum.Enum, np.dtype, type)) for v in value):
        return [to_schema_value(v) for v in value]
    return value

