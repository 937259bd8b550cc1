"""DALI's printed forms of tensors and batches (``str()`` with the data, ``repr()`` without): the
same text as DALI's, with long data cut to its first and last items.
"""
import numpy as np


def _join(parts, crop, edgeitems, sep=", "):
    if crop:
        parts = parts[:edgeitems] + ["..."] + parts[-edgeitems:]
    return sep.join(parts)


def _tensor_to_string(t, show_data=True):
    """DALI's printing of a tensor: ``TensorCPU(\\n    data,\\n    dtype=...,\\n    layout=...,\\n    shape=[...])``."""
    indent = " " * 4
    layout = t.layout()
    params = []
    if show_data:
        params.append(np.array2string(np.asarray(t.as_cpu()), prefix=indent, edgeitems=2))
    params += [f"dtype={t.dtype}"] + ([f"layout={layout}"] if layout else []) + [f"shape={t.shape()})"]
    return f"{type(t).__name__}(\n{indent}" + _join(params, False, 0, ",\n" + indent)


def _tensorlist_to_string(tl, show_data=True, indent=""):
    """DALI's printing of a batch (data cut to the first and last two samples past 1000 elements)."""
    edgeitems = 2
    spaces = indent + " " * 4
    layout = tl.layout()
    params = []
    if show_data:
        data = tl.as_cpu()
        data_str = "[]"
        if len(data):
            if data.is_dense_tensor():
                data_str = np.array2string(np.asarray(data.as_tensor()), prefix=spaces, edgeitems=edgeitems)
            else:
                arrays = [np.asarray(s) for s in data]
                crop = len(arrays) > 2 * edgeitems + 1 and sum(max(a.size, 1) for a in arrays) > 1000
                if crop:
                    arrays = arrays[:edgeitems] + arrays[-edgeitems:]
                sep = "\n" * arrays[0].ndim + spaces
                strings = [np.array2string(a, prefix=spaces, edgeitems=edgeitems) for a in arrays]
                data_str = f"[{_join(strings, crop, edgeitems, sep)}]"
        params.append(data_str)
    shapes = tl.shape()
    crop = len(shapes) > 16 or (len(shapes) > 2 * edgeitems + 1 and len(shapes) * len(shapes[0]) > 100)
    shape_strs = [str(s) for s in shapes]
    shape_str = _join(shape_strs, crop, edgeitems)
    prefix = "shape=["
    if len(shape_str) > 75:
        shape_str = _join(shape_strs, crop, edgeitems, ", \n" + spaces + " " * len(prefix))
    params += [f"dtype={tl.dtype}"] + ([f'layout="{layout}"'] if layout else []) + \
        [f"num_samples={len(tl)}", f"{prefix}{shape_str}])"]
    return f"{type(tl).__name__}(\n{spaces}" + _join(params, False, 0, ",\n" + spaces)
