"""The object API: one class per registered operator, generated at import from the registry.

``readers.file`` is ``ops.readers.File``; ``crop_mirror_normalize`` is ``ops.CropMirrorNormalize``.
Construct with constant arguments, call with inputs (and per-sample arguments)::

    decode = ops.decoders.Image(device="cpu", output_type=types.RGB)
    images = decode(jpegs)

DALI's legacy names (``ops.FileReader``, ``ops.ImageDecoder``, ``ops.CoinFlip``, ...) are aliases.
"""
import inspect as _inspect
import sys as _sys

from . import namespaces as _ns
from .dl_tensor_python_function import DLTensorPythonFunction  # noqa: F401 (python_function on DLPack)
from .external_source import ExternalSource
from .python_function import PythonFunction
from .graph import call_operator as _call_operator, check_arguments as _check_arguments
from .schema import all_schemas as _all_schemas, get_schema as _get_schema

# Python-side overrides, consulted when the namespace is built: registry name -> the class that is
# ops' face of that operator instead of the schema-generated one (operators implemented in Python).
_PYTHON_OVERRIDES = {"external_source": ExternalSource, "python_function": PythonFunction}

class Operator:
    """Base of the generated operator classes. ``schema_name`` is the registry name."""

    schema_name = None

    def __init__(self, *, device="cpu", name=None, **kwargs):
        self._schema = _get_schema(self.schema_name)
        _check_arguments(self.schema_name, device, name, kwargs)
        self._device = device
        self._name = name
        self._kwargs = kwargs
        self._calls = 0

    @property
    def device(self):
        return self._device

    @property
    def schema(self):
        return self._schema

    def __call__(self, *inputs, name=None, **kwargs):
        if "device" in kwargs:
            raise TypeError(f"{type(self).__name__}: give `device` when constructing the operator, not when calling it")
        merged = {**self._kwargs, **kwargs}
        # DALI code often names the call (reader(name="Reader")). Instance names are unique in a
        # pipeline: a named operator called again gets a suffix.
        name = name or self._name
        name = name if not (name and self._calls) else f"{name}_{self._calls}"
        self._calls += 1
        outputs = _call_operator(self.schema_name, list(inputs), merged, device=self._device, name=name)
        return outputs[0] if len(outputs) == 1 else outputs

    def __repr__(self):
        return f"ops.{type(self).__qualname__}(device={self._device!r})"


class TFRecord:
    """DALI's ``ops.readers.TFRecord`` (legacy ``ops.TFRecordReader``): ``fn.readers.tfrecord``'s
    arguments (``path``, ``index_path``, ``features`` -- a dict of ``sluice.tfrecord`` features --
    and the reader arguments) at construction; calling it returns the dict of DataNodes keyed by
    feature name, in the order of ``features``::

        import sluice.tfrecord as tfrec
        reader = ops.readers.TFRecord(path=["a.tfrecord"], index_path=["a.idx"],
                                      features={"image/encoded": tfrec.FixedLenFeature((), tfrec.string, "")})
        inputs = reader(name="Reader")
        jpegs = inputs["image/encoded"]
    """

    schema_name = "readers.tfrecord"

    def __init__(self, *, path, features, index_path=None, device="cpu", name=None, **kwargs):
        from . import tfrecord as _tfrecord
        checked = dict(kwargs, path=[path] if isinstance(path, str) else list(path),
                       **_tfrecord.feature_arguments(features))  # a TypeError for bad features, now
        _check_arguments(self.schema_name, device, name, checked)
        self._device = device
        self._name = name
        self._kwargs = dict(kwargs, path=path, features=features, index_path=index_path)
        self._calls = 0

    @property
    def device(self):
        return self._device

    def __call__(self, *, name=None, **kwargs):
        from . import tfrecord as _tfrecord
        if "device" in kwargs:
            raise TypeError("TFRecord: give `device` when constructing the operator, not when calling it")
        name = name or self._name
        name = name if not (name and self._calls) else f"{name}_{self._calls}"
        self._calls += 1
        return _tfrecord.tfrecord(**{**self._kwargs, **kwargs}, device=self._device, name=name)

    def __repr__(self):
        return f"ops.readers.TFRecord(device={self._device!r})"


# Python classes DALI has beside the generated ones (dotted ops name -> (registry name, class)),
# added when the namespace is built if that operator is registered. DALI spells the TFRecord
# reader's class readers.TFRecord (legacy TFRecordReader) and it takes features={...}; the
# generated readers.Tfrecord, with the schema's feature_* arguments, stays.
_PYTHON_CLASSES = {"readers.TFRecord": ("readers.tfrecord", TFRecord),
                   "TFRecordReader": ("readers.tfrecord", TFRecord)}


def _make_class(schema, class_name, module_name):
    cls = type(class_name, (Operator,), {
        "schema_name": schema.name, "__doc__": schema.doc, "__module__": module_name,
        "__qualname__": class_name,
    })
    cls.__init__ = _init_with_signature(schema)
    return cls


def _init_with_signature(schema):
    def __init__(self, **kwargs):
        Operator.__init__(self, **kwargs)
    __init__.__signature__ = _inspect.Signature(
        [_inspect.Parameter("self", _inspect.Parameter.POSITIONAL_ONLY)] + _ns.keyword_parameters(schema))
    __init__.__doc__ = schema.doc
    return __init__


def _generate(root):
    schemas = _all_schemas()
    _ns.generate(root, schemas, _PYTHON_OVERRIDES, _make_class, leaf_name=_ns.ops_class_name)
    _ns.install_legacy_names(root, leaf_name=_ns.ops_class_name)
    _install_camel_case_aliases(root, schemas)
    for dotted, (registry_name, cls) in _PYTHON_CLASSES.items():
        if registry_name in schemas:
            path, attr = _ns.split_name(dotted)
            setattr(_ns.submodule(root, path), attr, cls)


def _install_camel_case_aliases(root, schemas):
    """ops.BboxPaste for ops.BBoxPaste, ...: the camel-case spellings Sluice named its classes by before
    it took DALI's (namespaces.DALI_CLASS_NAMES), kept as aliases of the same classes."""
    names = dict((n, n) for n in schemas)
    names.update(_ns.LEGACY_NAMES)
    for alias, target in names.items():
        path, leaf = _ns.split_name(alias)
        if _ns.ops_class_name(leaf) == _ns.camel_case(leaf):
            continue
        t_path, t_leaf = _ns.split_name(target)
        cls = _ns.find(root, f"{t_path}.{_ns.ops_class_name(t_leaf)}" if t_path else _ns.ops_class_name(t_leaf))
        module = _ns.submodule(root, path)
        if cls is not None and _ns.camel_case(leaf) not in vars(module):
            setattr(module, _ns.camel_case(leaf), cls)


def _add_operators(schemas):
    """Classes for operators registered after import (sluice.plugin_manager.load_library)."""
    _ns.generate(_sys.modules[__name__], schemas, _PYTHON_OVERRIDES, _make_class, leaf_name=_ns.ops_class_name)


_generate(_sys.modules[__name__])
_ns.install_suggestions(_sys.modules[__name__], "operator")
