"""DALI's ``types.Constant`` (exposed as ``sluice.types.Constant``; defined here because it makes
graph nodes, and sluice.graph imports sluice.types)."""
import numpy as np

from . import types
from .graph import call_operator


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
        name = types.to_schema_value(dtype)
    if arr.ndim == 0 and shape is None and layout is None and device is None and not kwargs:
        return np.dtype(name).type(arr.item())
    flat = arr.reshape(-1)
    data = {"fdata": [float(x) for x in flat]} if arr.dtype.kind == "f" else {"idata": [int(x) for x in flat]}
    args = dict(data, shape=list(arr.shape) if shape is None else list(np.atleast_1d(shape)), dtype=name, **kwargs)
    if layout is not None:
        args["layout"] = str(layout)
    return call_operator("constant", [], args, device="cpu")[0]
