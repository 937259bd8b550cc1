"""TFRecord support, as DALI's ``nvidia.dali.tfrecord``::

    import sluice.tfrecord as tfrec
    inputs = fn.readers.tfrecord(
        path=["train-0.tfrecord"], index_path=["train-0.idx"],
        features={"image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                  "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1),
                  "image/object/bbox/xmin": tfrec.VarLenFeature(tfrec.float32, 0.0)})
    jpegs, labels = inputs["image/encoded"], inputs["image/class/label"]

``fn.readers.tfrecord`` returns a dict of DataNodes keyed by feature name, in the order of the
``features`` dict. int64 features are int64, float32 features float32, string features the first
value's bytes as a 1-D uint8 tensor. A FixedLenFeature of shape ``()``/``[]`` is read as shape
``[1]`` (as DALI does); a missing feature is its default value (a FixedLenFeature's shape filled
with it; one element for a VarLenFeature).

The C++ operator (``readers.tfrecord``) takes the features as plain lists (``feature_names``,
``feature_kinds``, ``feature_dtypes``, ``feature_ndims``, ``feature_shapes``, and the defaults):
:func:`tfrecord` converts the dict, and is ``fn.readers.tfrecord`` (one of sluice.fn's Python-side
overrides). ``import sluice`` imports this module, as ``import nvidia.dali`` does DALI's.

:func:`write_index` writes an index in DALI's ``tfrecord2idx`` format ("offset size" per record).
"""
import os as _os
import struct as _struct

int64 = "int64"
float32 = "float32"
string = "string"
_DTYPES = (int64, float32, string)


class _Feature:
    kind = None

    def __init__(self, dtype, default_value):
        if dtype not in _DTYPES:
            raise TypeError(f"unknown TFRecord feature type {dtype!r}: use sluice.tfrecord.int64, float32 "
                            f"or string")
        self.dtype = dtype
        self.default_value = default_value
        self.shape = []

    def __repr__(self):
        return f"{type(self).__name__}({self.shape!r}, {self.dtype}, {self.default_value!r})"


class FixedLenFeature(_Feature):
    """A feature with a fixed number of values: ``shape`` (() or [] means one value)."""
    kind = "fixed"

    def __init__(self, shape, dtype, default_value):
        super().__init__(dtype, default_value)
        if isinstance(shape, int):
            shape = [shape]
        self.shape = [int(d) for d in shape]
        if any(d < 0 for d in self.shape):
            raise ValueError(f"FixedLenFeature shape {shape!r} has a negative extent")


class VarLenFeature(_Feature):
    """A feature with any number of values (a 1-D output)."""
    kind = "var"

    def __init__(self, dtype, default_value):
        super().__init__(dtype, default_value)


def _default(feature, name):
    v = feature.default_value
    if isinstance(v, (list, tuple)):  # TensorFlow-style list defaults: all values must be equal
        if not v or any(x != v[0] for x in v):
            raise ValueError(f"feature {name!r}: the default value must be a single value, not {v!r}")
        v = v[0]
    if feature.dtype == string:
        if v is None:
            return ""
        if isinstance(v, bytes):
            return v.decode("latin-1")
        return str(v)
    if v is None:
        return 0
    if feature.dtype == int64:
        if isinstance(v, float) and not v.is_integer():
            raise ValueError(f"feature {name!r}: int64 default value {v!r} is not an integer")
        return int(v)
    return float(v)


def feature_arguments(features):
    """The readers.tfrecord arguments that describe `features` (a dict name -> feature)."""
    if not isinstance(features, dict) or not features:
        raise TypeError("readers.tfrecord: `features` must be a non-empty dict of name -> "
                        "sluice.tfrecord.FixedLenFeature / VarLenFeature")
    args = {k: [] for k in ("feature_names", "feature_kinds", "feature_dtypes", "feature_ndims",
                            "feature_shapes", "feature_int_defaults", "feature_float_defaults",
                            "feature_string_defaults")}
    for name, f in features.items():
        if not isinstance(name, str):
            raise TypeError(f"readers.tfrecord: feature names must be strings, got {name!r}")
        if not isinstance(f, _Feature):
            raise TypeError(f"readers.tfrecord: feature {name!r} is {f!r}, not a sluice.tfrecord."
                            f"FixedLenFeature or VarLenFeature")
        d = _default(f, name)
        args["feature_names"].append(name)
        args["feature_kinds"].append(f.kind)
        args["feature_dtypes"].append(f.dtype)
        args["feature_ndims"].append(len(f.shape))
        args["feature_shapes"].extend(f.shape)
        args["feature_int_defaults"].append(d if f.dtype == int64 else 0)
        args["feature_float_defaults"].append(float(d) if f.dtype == float32 else 0.0)
        args["feature_string_defaults"].append(d if f.dtype == string else "")
    if not args["feature_shapes"]:
        del args["feature_shapes"]  # the schema's default (an empty list)
    return args


def tfrecord(*, path, index_path=None, features, device=None, name=None, **kwargs):
    """fn.readers.tfrecord: a dict of DataNodes keyed by feature name (see the module's doc)."""
    from .graph import call_operator
    if isinstance(path, (str, _os.PathLike)):
        path = [path]
    kwargs["path"] = [_os.fspath(p) for p in path]
    if index_path is not None:
        if isinstance(index_path, (str, _os.PathLike)):
            index_path = [index_path]
        kwargs["index_path"] = [_os.fspath(p) for p in index_path]
    kwargs.update(feature_arguments(features))
    outputs = call_operator("readers.tfrecord", [], kwargs, device=device, name=name)
    return dict(zip(features.keys(), outputs))


# ---- The index (DALI's tfrecord2idx format) ----

def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = None


def _crc32c(data):
    global _TABLE
    if _TABLE is None:
        _TABLE = _crc32c_table()
    crc = 0xFFFFFFFF
    t = _TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _masked(crc):
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _index_python(path):
    """The index text, computed in Python (for an extension built without the tfrecord binding):
    checks the length CRC of every record and that none is truncated."""
    from .errors import SluiceError
    lines = []
    size = _os.path.getsize(path)
    with open(path, "rb") as f:
        off = 0
        while off < size:
            head = f.read(12)
            where = f"TFRecord file '{path}', record at byte offset {off}"
            if len(head) < 12:
                raise SluiceError(f"{where}: truncated record (the file ends inside its 12-byte header)")
            length, crc = _struct.unpack("<QI", head)
            if _masked(_crc32c(head[:8])) != crc:
                raise SluiceError(f"{where}: length CRC mismatch: corrupted or not a TFRecord file")
            if length > size - off - 16:
                raise SluiceError(f"{where}: truncated record (its length field says {length} bytes of data; "
                                  f"the file has {size - off} bytes from the record's start)")
            data = f.read(length)
            (dcrc,) = _struct.unpack("<I", f.read(4))
            if _masked(_crc32c(data)) != dcrc:
                raise SluiceError(f"{where}: data CRC mismatch: corrupted record")
            lines.append(f"{off} {length + 16}\n")
            off += length + 16
    return "".join(lines).encode()


def index_bytes(tfrecord_path):
    """The index of a TFRecord file in DALI's tfrecord2idx format, as bytes."""
    from . import _sluice
    tfrecord_path = _os.fspath(tfrecord_path)
    native = getattr(_sluice, "tfrecord_index", None)
    return native(tfrecord_path) if native is not None else _index_python(tfrecord_path)


def write_index(tfrecord_path, index_path):
    """Writes the index of `tfrecord_path` to `index_path` in DALI's tfrecord2idx format: one line
    "offset size" per record (size = the whole record, 16 bytes of framing included). Every record's
    CRCs are checked; a bad one or a truncated record raises SluiceError naming the file and the
    record's byte offset (and nothing is written)."""
    text = index_bytes(tfrecord_path)
    with open(index_path, "wb") as f:
        f.write(text)
