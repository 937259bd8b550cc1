"""The functional API: one function per registered operator, generated at import from the registry
(or, for the few in ``_PYTHON_OVERRIDES``, written in Python).

``readers.file`` is ``fn.readers.file``; each function takes the operator's inputs positionally and
its arguments by keyword (a DataNode for a per-sample argument), plus ``device`` and ``name``, and
returns a DataNode (or a list of them for several outputs)::

    jpegs, labels = fn.readers.file(file_root=root, random_shuffle=True, name="Reader")
    images = fn.decoders.image(jpegs, device="cpu")
"""
import inspect as _inspect
import sys as _sys

from . import _conditionals, namespaces as _ns
from .dl_tensor_python_function import dl_tensor_python_function  # noqa: F401 (python_function on DLPack)
from .external_source import external_source
from .graph import call_operator as _call_operator
from .python_function import python_function
from .schema import all_schemas as _all_schemas
from .tfrecord import tfrecord as _tfrecord

# Python-side overrides, consulted when the namespace is built: registry name -> the function that is
# fn's face of that operator instead of the schema-generated one. external_source and python_function
# are implemented in Python; readers.tfrecord runs in C++ but takes DALI's features={...} dict of
# sluice.tfrecord features and returns a dict of DataNodes by feature name, which the schema's
# feature_* lists and list of outputs do not express.
_PYTHON_OVERRIDES = {"external_source": external_source, "python_function": python_function,
                     "readers.tfrecord": _tfrecord}

def _make_function(schema, func_name, module_name):
    op_name = schema.name

    def op_function(*inputs, device=None, name=None, **kwargs):
        outputs = _call_operator(op_name, list(inputs), kwargs, device=device, name=name)
        return outputs[0] if len(outputs) == 1 else outputs

    op_function.__name__ = func_name
    op_function.__qualname__ = func_name
    op_function.__module__ = module_name
    op_function.__doc__ = schema.doc
    op_function.__signature__ = _inspect.Signature(
        _ns.input_parameters(schema) + _ns.keyword_parameters(schema))
    return op_function


def _generate(root):
    _ns.generate(root, _all_schemas(), _PYTHON_OVERRIDES, _make_function)
    _ns.install_legacy_names(root)


def _add_operators(schemas):
    """Functions for operators registered after import (sluice.plugin_manager.load_library)."""
    _ns.generate(_sys.modules[__name__], schemas, _PYTHON_OVERRIDES, _make_function)


_generate(_sys.modules[__name__])
_conditionals.install(_sys.modules[__name__])  # fn._conditional.split/merge/not_/validate_logical
_ns.install_suggestions(_sys.modules[__name__], "operator")
