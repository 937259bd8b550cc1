"""Operator libraries (DALI's ``nvidia.dali.plugin_manager``): shared objects of C++ operators built
outside Sluice against its installed package (``find_package(Sluice)``, target
``sluice::sluice_operator_library``; docs/custom-operators.md). Once loaded, their operators are
in ``sluice.fn`` and ``sluice.ops`` like the built-in ones::

    import sluice.plugin_manager as plugin_manager
    plugin_manager.load_library("build/ops/libsluice_example_ops.so")
    inverted = sluice.fn.custom.invert(images)          # or sluice.ops.custom.Invert()
"""
import os

from . import _sluice, fn, ops
from .errors import SluiceError
from .schema import get_schema

__all__ = ["load_library"]


def load_library(library_path, global_symbols=False):
    """Loads the operator library at ``library_path`` and adds its operators to ``fn`` and ``ops``.
    ``global_symbols``: make the library's own symbols visible to libraries loaded after it. Loading
    one library twice does nothing more. Raises :class:`~sluice.errors.SluiceError` naming the file
    when it cannot be loaded, is not a Sluice operator library, was built against other Sluice
    headers, or registers an operator name already taken (then nothing of it is registered)."""
    path = os.fspath(library_path)
    if not os.path.isfile(path):
        raise SluiceError(f"load_library: no such file: {path!r}")
    names = _sluice.load_operator_library(os.path.abspath(path), bool(global_symbols))
    schemas = {n: get_schema(n) for n in names}
    fn._add_operators(schemas)
    ops._add_operators(schemas)
    return names
