"""DALI's type names (``types.FLOAT``, ``types.RGB``, ``types.INTERP_LINEAR``, ``types.NCHW``, ...)
and ``types.Constant``.

The C++ schemas take plain strings ("float32", "RGB", "LINEAR", "CHW"); :func:`to_schema_value`
(sluice.schema's, here too) converts these enums (and NumPy dtypes) to them. Every other value goes
to the C++ core as it is, which converts it by its Python type and validates it against the schema.

``Constant`` makes graph nodes, so this module imports sluice.graph; sluice.graph takes
to_schema_value from sluice.schema, not from here, so the two do not import each other.
"""
import enum

import numpy as np

from .graph import call_operator
from .schema import to_schema_value


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


def Constant(value, dtype=None, shape=None, layout=None, device=None, **kwargs):
    """DALI's ``types.Constant``: a constant for a pipeline graph.

    A scalar without shape, layout or device is returned as a NumPy scalar of `dtype` (DALI's
    ScalarConstant: inlined into arithmetic with its type, ``Constant(255, dtype=UINT8) - images``
    stays uint8); default type int32 for integers, float32 for floats. Anything else (a list, an
    array, a scalar with a shape) becomes a ``constant`` operator node, whose every sample is the
    value. `dtype` is a DALIDataType or a NumPy type; `kwargs` are the constant operator's.
    """
    if device not in (None, "cpu"):
        raise ValueError(f"types.Constant: device={device!r}: Sluice makes constants on the CPU "
                         "(use .gpu() on the result)")
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"types.Constant: expected a number, a list of numbers or a numeric array, got {value!r}")
    if dtype is None:
        name = {"b": "bool", "f": "float32"}.get(arr.dtype.kind, "int32") if not isinstance(value, np.ndarray) \
            else {"float64": "float32", "int64": "int32", "uint64": "int64", "uint32": "int64"}.get(arr.dtype.name,
                                                                                                    arr.dtype.name)
    else:
        name = to_schema_value(dtype)
    if arr.ndim == 0 and shape is None and layout is None and device is None and not kwargs:
        return np.dtype(name).type(arr.item())
    flat = arr.reshape(-1)
    data = {"fdata": [float(x) for x in flat]} if arr.dtype.kind == "f" else {"idata": [int(x) for x in flat]}
    args = dict(data, shape=list(arr.shape) if shape is None else list(np.atleast_1d(shape)), dtype=name, **kwargs)
    if layout is not None:
        args["layout"] = str(layout)
    return call_operator("constant", [], args, device="cpu")[0]
