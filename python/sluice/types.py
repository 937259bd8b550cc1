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


class _PrintedAsDALI:
    """``str()`` and ``format()`` as DALI's enums (pybind11 enums) print: ``DALIDataType.UINT8``, not
    the number that Python 3.11's IntEnum prints; ``repr()`` is IntEnum's ``<DALIDataType.UINT8: 0>``,
    which is pybind11's too. A format spec (``f"{t:d}"``) still formats the number."""

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"

    def __format__(self, spec):
        return str(self) if not spec else int.__format__(int(self), spec)


class DALIDataType(_PrintedAsDALI, enum.IntEnum):
    """Element and argument types, numbered as in DALI (``dali/core/types.h``). ``sluice_name`` is the
    name the C++ core uses; the types Sluice has no tensors of (the non-numeric ones) raise
    TypeError there."""

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
    STRING = 12
    _BOOL_VEC = 13
    _INT32_VEC = 14
    _STRING_VEC = 15
    _FLOAT_VEC = 16
    FEATURE = 17
    _FEATURE_VEC = 18
    _FEATURE_DICT = 19
    IMAGE_TYPE = 20
    DATA_TYPE = 21
    INTERP_TYPE = 22
    TENSOR_LAYOUT = 23
    PYTHON_OBJECT = 24
    _TENSOR_LAYOUT_VEC = 25
    _DATA_TYPE_VEC = 26

    @property
    def sluice_name(self):
        name = _DTYPE_NAMES.get(self)
        if name is None:
            raise TypeError(f"Sluice has no tensors of type {self.name}")
        return name

    def to_numpy(self):
        """The NumPy dtype of a numeric type; TypeError for the others."""
        try:
            return np.dtype(to_numpy_type(self))
        except KeyError:
            raise TypeError(f"{self} is not a numeric type: it has no NumPy dtype") from None


# The element types Sluice's C++ core has (include/sluice/dtype.h).
_DTYPE_NAMES = {
    DALIDataType.UINT8: "uint8", DALIDataType.UINT16: "uint16", DALIDataType.INT8: "int8",
    DALIDataType.INT16: "int16", DALIDataType.INT32: "int32", DALIDataType.INT64: "int64",
    DALIDataType.FLOAT16: "float16", DALIDataType.FLOAT: "float32", DALIDataType.FLOAT64: "float64",
    DALIDataType.BOOL: "bool", DALIDataType.UINT32: "uint32", DALIDataType.UINT64: "uint64",
}
_DTYPE_BY_NAME = {v: k for k, v in _DTYPE_NAMES.items()}


def dtype_from_name(name):
    """The DALIDataType of a NumPy / Sluice dtype name such as "float32"."""
    return _DTYPE_BY_NAME[name]


_NUMPY_TYPES = {
    DALIDataType.UINT8: np.uint8, DALIDataType.UINT16: np.uint16, DALIDataType.UINT32: np.uint32,
    DALIDataType.UINT64: np.uint64, DALIDataType.INT8: np.int8, DALIDataType.INT16: np.int16,
    DALIDataType.INT32: np.int32, DALIDataType.INT64: np.int64, DALIDataType.FLOAT16: np.float16,
    DALIDataType.FLOAT: np.float32, DALIDataType.FLOAT64: np.float64, DALIDataType.BOOL: np.bool_,
}


def to_numpy_type(dali_type):
    """DALI's ``types.to_numpy_type``: the NumPy scalar type of a numeric DALIDataType (``np.float32``
    for ``FLOAT``). A non-numeric type (STRING, NO_TYPE, ...) raises KeyError, as in DALI."""
    return _NUMPY_TYPES[dali_type]


# The type names NumPy, PyTorch and others print (DALI's table), for to_dali_type.
_TYPE_NAME_TO_DALI_TYPE = {
    "bool": DALIDataType.BOOL, "boolean": DALIDataType.BOOL,
    "int8": DALIDataType.INT8, "sbyte": DALIDataType.INT8,
    "uint8": DALIDataType.UINT8, "byte": DALIDataType.UINT8, "ubyte": DALIDataType.UINT8,
    "int16": DALIDataType.INT16, "short": DALIDataType.INT16,
    "uint16": DALIDataType.UINT16, "ushort": DALIDataType.UINT16,
    "int32": DALIDataType.INT32, "uint32": DALIDataType.UINT32,
    "int64": DALIDataType.INT64, "long": DALIDataType.INT64,
    "uint64": DALIDataType.UINT64, "ulong": DALIDataType.UINT64,
    "half": DALIDataType.FLOAT16, "float16": DALIDataType.FLOAT16,
    "float": DALIDataType.FLOAT, "float32": DALIDataType.FLOAT,
    "float64": DALIDataType.FLOAT64, "double": DALIDataType.FLOAT64,
}


def to_dali_type(framework_type):
    """DALI's ``types.to_dali_type``: the DALIDataType of a framework's element type, found by the name
    ``str()`` gives it (``np.dtype("uint8")``, ``torch.float32``, "int16"). Raises TypeError for
    anything else (as in DALI, NumPy's scalar classes such as ``np.float32`` are not accepted: pass
    ``np.dtype(np.float32)``)."""
    name = str(framework_type)
    if name.startswith("torch."):
        name = name[len("torch."):]
    t = _TYPE_NAME_TO_DALI_TYPE.get(name)
    if t is None:
        raise TypeError(f"'{framework_type}' could not be converted into any known DALIDataType.")
    return t


class DALIImageType(_PrintedAsDALI, enum.IntEnum):
    RGB = 0
    BGR = 1
    GRAY = 2
    YCbCr = 3
    ANY_DATA = 4

    @property
    def sluice_name(self):
        return self.name


class DALIInterpType(_PrintedAsDALI, enum.IntEnum):
    INTERP_NN = 0
    INTERP_LINEAR = 1
    INTERP_CUBIC = 2
    INTERP_LANCZOS3 = 3
    INTERP_TRIANGULAR = 4
    INTERP_GAUSSIAN = 5

    @property
    def sluice_name(self):
        return self.name[len("INTERP_"):]


class TensorLayout(str):
    """DALI's ``types.TensorLayout``: a layout string ("HWC"). Made from a string; compares with
    strings and layouts as strings do; ``len()`` is its number of dimensions; ``repr()`` is DALI's
    (with ``sluice`` for ``nvidia.dali``). Being a ``str`` here, it goes wherever a layout string does."""

    __slots__ = ()

    def __new__(cls, layout):
        if not isinstance(layout, str):
            raise TypeError(f"TensorLayout takes a string, got {type(layout).__name__}")
        return super().__new__(cls, layout)

    def __str__(self):
        return str.__str__(self)

    def __repr__(self):
        return f"sluice.types.TensorLayout({str.__repr__(self)})"


class PipelineAPIType(enum.Enum):
    """Pipeline API type"""

    BASIC = 0
    ITERATOR = 1
    SCHEDULED = 2


class CUDAStream:
    """DALI's ``types.CUDAStream``: a raw CUDA stream handle, ``ptr``."""

    def __init__(self, ptr=0):
        self._ptr = ptr

    @property
    def ptr(self):
        """The raw CUDA stream pointer (an int)."""
        return self._ptr


class SampleInfo:
    """What ``external_source`` passes to a per-sample callback (``batch=False``), as DALI's
    ``types.SampleInfo``.

    :ivar idx_in_epoch: 0-based index of the sample in the epoch
    :ivar idx_in_batch: 0-based index of the sample in the batch
    :ivar iteration:    the batch's number in the epoch
    :ivar epoch_idx:    the epoch's number
    """

    def __init__(self, idx_in_epoch, idx_in_batch, iteration, epoch_idx):
        self.idx_in_epoch = idx_in_epoch
        self.idx_in_batch = idx_in_batch
        self.iteration = iteration
        self.epoch_idx = epoch_idx

    def __repr__(self):
        return (f"SampleInfo(idx_in_epoch={self.idx_in_epoch}, idx_in_batch={self.idx_in_batch}, "
                f"iteration={self.iteration}, epoch_idx={self.epoch_idx})")


class BatchInfo:
    """What ``external_source`` passes to a batch callback with ``batch_info=True``, as DALI's
    ``types.BatchInfo``.

    :ivar iteration: the batch's number in the epoch
    :ivar epoch_idx: the epoch's number
    """

    def __init__(self, iteration, epoch_idx):
        self.iteration = iteration
        self.epoch_idx = epoch_idx

    def __repr__(self):
        return f"BatchInfo(iteration={self.iteration}, epoch_idx={self.epoch_idx})"


# DALI's value for "no CUDA device" (dali/core/common.h): a CPU-only pipeline's device_id.
CPU_ONLY_DEVICE_ID = -99999

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
STRING = DALIDataType.STRING
FEATURE = DALIDataType.FEATURE
IMAGE_TYPE = DALIDataType.IMAGE_TYPE
DATA_TYPE = DALIDataType.DATA_TYPE
INTERP_TYPE = DALIDataType.INTERP_TYPE
TENSOR_LAYOUT = DALIDataType.TENSOR_LAYOUT
PYTHON_OBJECT = DALIDataType.PYTHON_OBJECT

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

# Batch layouts as DALI spells them: the per-sample layout strings the schemas take.
NCHW = "CHW"
NHWC = "HWC"
NFCHW = "FCHW"
NFHWC = "FHWC"
NCFHW = "CFHW"
SAME = ""


_INT_TYPES = (DALIDataType.INT8, DALIDataType.INT16, DALIDataType.INT32, DALIDataType.INT64, DALIDataType.UINT8,
              DALIDataType.UINT16, DALIDataType.UINT32, DALIDataType.UINT64)
_FLOAT_TYPES = (DALIDataType.FLOAT16, DALIDataType.FLOAT, DALIDataType.FLOAT64)


class ScalarConstant:
    """DALI's ``types.ScalarConstant`` (what ``Constant(scalar)`` returns): a number with the type it
    takes in arithmetic with DataNodes (``images * Constant(0.5)`` is float32,
    ``Constant(255).uint8() - images`` stays uint8) and when it is an operator's input (a 0-d
    constant of that type). ``.int8()``, ``.uint8()``, ..., ``.float32()``, ``.float64()``,
    ``.bool()`` give the same value with another type; as an argument it is its value. A Python
    bool, int, float is BOOL, INT32, FLOAT; a NumPy scalar keeps its type. A uint64 constant computes
    as int64 (Sluice's expressions compute integers in int64 and take no uint64 operands; see
    docs/dali-compatibility.md)."""

    _sluice_scalar_constant = True  # how sluice.graph, which this module imports, recognises it

    def __init__(self, value, dtype=None):
        self.shape = []
        value_dtype = getattr(value, "dtype", None)  # NumPy scalars and 0-d arrays
        if value_dtype is not None:
            dali_type = to_dali_type(value_dtype)
            value = bool(value) if dali_type == DALIDataType.BOOL else \
                int(value) if dali_type in _INT_TYPES else float(value)
            if dtype is None:
                dtype = dali_type
        if not isinstance(value, (bool, int, float)):
            raise TypeError(f"Expected scalar value of type 'bool', 'int' or 'float', got {type(value)}.")
        if dtype is None:
            dtype = DALIDataType.BOOL if isinstance(value, bool) else \
                DALIDataType.INT32 if isinstance(value, int) else DALIDataType.FLOAT
        dtype = _as_dali_type(dtype)
        if dtype == DALIDataType.BOOL:
            self.value = bool(value)
        elif dtype in _INT_TYPES:
            self.value = int(value)
        elif dtype in _FLOAT_TYPES:
            self.value = float(value)
        else:
            raise TypeError(f"ScalarConstant can only hold one of the numeric types (BOOL, INT8 ... FLOAT64), "
                            f"got {dtype}.")
        self.dtype = dtype

    def bool(self):
        return ScalarConstant(self.value, DALIDataType.BOOL)

    def int8(self):
        return ScalarConstant(self.value, DALIDataType.INT8)

    def int16(self):
        return ScalarConstant(self.value, DALIDataType.INT16)

    def int32(self):
        return ScalarConstant(self.value, DALIDataType.INT32)

    def int64(self):
        return ScalarConstant(self.value, DALIDataType.INT64)

    def uint8(self):
        return ScalarConstant(self.value, DALIDataType.UINT8)

    def uint16(self):
        return ScalarConstant(self.value, DALIDataType.UINT16)

    def uint32(self):
        return ScalarConstant(self.value, DALIDataType.UINT32)

    def uint64(self):
        return ScalarConstant(self.value, DALIDataType.UINT64)

    def float16(self):
        return ScalarConstant(self.value, DALIDataType.FLOAT16)

    def float32(self):
        return ScalarConstant(self.value, DALIDataType.FLOAT)

    def float64(self):
        return ScalarConstant(self.value, DALIDataType.FLOAT64)

    @property
    def type_name(self):
        """The element type the C++ core computes this constant in ("uint8", "float32", ...)."""
        if self.dtype == DALIDataType.UINT64:
            return "int64"  # expressions take no uint64 operands: int64 holds every value below 2^63
        return self.dtype.sluice_name

    def __eq__(self, other):
        if isinstance(other, ScalarConstant):
            return self.value == other.value and self.dtype == other.dtype
        if isinstance(other, (bool, int, float, np.generic)):
            return self.value == other
        return other.__eq__(self)  # a DataNode: a per-sample comparison

    def __ne__(self, other):
        if isinstance(other, ScalarConstant):
            return self.value != other.value or self.dtype != other.dtype
        if isinstance(other, (bool, int, float, np.generic)):
            return self.value != other
        return other.__ne__(self)

    __hash__ = None

    def __bool__(self):
        if self.dtype == DALIDataType.BOOL or self.dtype in _INT_TYPES:
            return bool(self.value)
        raise TypeError("ScalarConstant must be converted to one of bool or int types explicitly before casting "
                        "to builtin `bool`.")

    def __int__(self):
        if self.dtype == DALIDataType.BOOL or self.dtype in _INT_TYPES:
            return int(self.value)
        raise TypeError("ScalarConstant must be converted to one of bool or int types explicitly before casting "
                        "to builtin `int`.")

    def __float__(self):
        if self.dtype in _FLOAT_TYPES:
            return self.value
        raise TypeError("ScalarConstant must be converted to one of the float types explicitly before casting "
                        "to builtin `float`.")

    def __str__(self):
        return f"{self.value}:{self.dtype}"

    def __repr__(self):
        return f"{self.value}"


def _as_dali_type(dtype):
    """A DALIDataType from a DALIDataType, a NumPy dtype/type or a Sluice type name."""
    if isinstance(dtype, DALIDataType):
        return dtype
    name = to_schema_value(dtype)
    if isinstance(name, str) and name in _DTYPE_BY_NAME:
        return _DTYPE_BY_NAME[name]
    raise TypeError(f"types.Constant: dtype must be a numeric DALIDataType or NumPy type, got {dtype!r}")


def _is_scalar_shape(shape):
    return shape is None or (not isinstance(shape, (str, bytes)) and np.size(shape) <= 1
                             and list(np.atleast_1d(shape)) in ([], [1]))


def Constant(value, dtype=None, shape=None, layout=None, device=None, **kwargs):
    """DALI's ``types.Constant``: a constant for a pipeline graph.

    A scalar (a Python number, a NumPy scalar or 0-d array) without device, layout, operator
    arguments or a shape other than DALI's scalar ones (``None``, ``[]``, ``[1]``) is returned as a
    :class:`ScalarConstant` (inlined into arithmetic with its type, ``Constant(255, dtype=UINT8) -
    images`` stays uint8; ``Constant(15).float32()`` retypes it); default type INT32 for ints,
    FLOAT for floats, BOOL for bools. Anything else (a list, an array, a scalar with a shape or a
    device) becomes a ``constant`` operator node, whose every sample is the value. `dtype` is a
    DALIDataType or a NumPy type; `kwargs` are the constant operator's.
    """
    if isinstance(value, ScalarConstant):
        value, dtype = value.value, value.dtype if dtype is None else dtype
    if device is None and layout is None and not kwargs and _is_scalar_shape(shape) and \
            (isinstance(value, (bool, int, float)) or (isinstance(value, (np.generic, np.ndarray))
                                                       and np.ndim(value) == 0 and np.asarray(value).dtype.kind in "biuf")):
        return ScalarConstant(value, dtype)
    if device not in (None, "cpu"):
        raise ValueError(f"types.Constant: device={device!r}: Sluice makes constants on the CPU "
                         "(use .gpu() on the result)")
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"types.Constant: expected a number, a list of numbers or a numeric array, got {value!r}")
    if dtype is None:
        name = {"b": "bool", "f": "float32"}.get(arr.dtype.kind, "int32") if not isinstance(value, np.ndarray) \
            else {"float64": "float32", "int64": "int32", "uint64": "uint32"}.get(arr.dtype.name, arr.dtype.name)
    else:
        name = to_schema_value(dtype)
    flat = arr.reshape(-1)
    data = {"fdata": [float(x) for x in flat]} if arr.dtype.kind == "f" else {"idata": [int(x) for x in flat]}
    args = dict(data, shape=list(arr.shape) if shape is None else list(np.atleast_1d(shape)), dtype=name, **kwargs)
    if layout is not None:
        args["layout"] = str(layout)
    return call_operator("constant", [], args, device="cpu")[0]
