"""The conversion of a function for conditionals: :func:`convert` and the calls that ask for it.

:func:`convert` parses the function's source, canonicalises and lowers its returns
(:mod:`.returns`), rewrites it (:mod:`.rewrite`) and compiles it under the user's file name and line
numbers; the result is cached (weakly) per function, and a function that cannot be converted raises
:class:`_ConversionError` with the reason. :func:`cv` is the callee of every call made by converted
code: a user function is converted on its first call (one that cannot be runs as it is, with a
warning); Sluice, NumPy, the standard library, the frameworks and :func:`do_not_convert` functions
never are. :func:`convert_pipeline_function` is pipeline_def's entry point (a SluiceError when the
definition cannot be converted).

This module is also the namespace converted code calls as ``_sluice_ag`` (its closure cell holds
this module): ``cv`` defined here, and the runtime statements and marker imported below.
"""
import ast
import inspect
import sys
import types as _pytypes
import warnings
import weakref

from ..errors import SluiceError
from .generated import _AG
from .returns import _canonicalize_returns
from .rewrite import _Rewriter
# The rest of the `_sluice_ag` namespace (see the module's doc): what converted code calls.
from .scopes import UNDEFINED_RETURN  # noqa: F401
from .statements import and_, if_, not_, or_  # noqa: F401

# --- calls from converted code: convert the callee too ---------------------------------------------

# Modules whose functions are never converted: Sluice itself, and libraries that do not build Sluice
# graphs (DALI's list, plus the frameworks).
_DO_NOT_CONVERT = ("sluice", "numpy", "pandas", "PIL", "matplotlib", "absl", "torch", "jax", "jaxlib",
                   "tensorflow", "cupy", "scipy", "numba", "ray", "pytest", "_pytest")
_converted = weakref.WeakKeyDictionary()  # original function -> converted function
_unconvertible = weakref.WeakSet()


def cv(f):
    """The callee of a call made from converted code: `f` converted when it is a user function."""
    if isinstance(f, _pytypes.MethodType):
        func = f.__func__
        if isinstance(func, _pytypes.FunctionType) and _wants_conversion(func):
            conv = _convert_or_none(func)
            if conv is not None:
                return _pytypes.MethodType(conv, f.__self__)
        return f
    if isinstance(f, _pytypes.FunctionType) and _wants_conversion(f):
        conv = _convert_or_none(f)
        if conv is not None:
            return conv
    return f


def _wants_conversion(func):
    if getattr(func, "_sluice_do_not_convert", False) or func in _unconvertible:
        return False
    if "_sluice_ag" in func.__code__.co_freevars:  # already converted (or defined inside converted code)
        return False
    if func.__name__ == "<lambda>" or func.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                                                 inspect.CO_ASYNC_GENERATOR):
        return False
    module = (getattr(func, "__module__", None) or "").split(".")[0]
    return module not in _DO_NOT_CONVERT and module not in sys.stdlib_module_names and module != "builtins"


def _convert_or_none(func):
    try:
        return convert(func)
    except Exception as e:  # noqa: BLE001 - a function that cannot be converted runs as it is (as in DALI)
        _unconvertible.add(func)
        reason = str(e) if isinstance(e, _ConversionError) else f"{func.__qualname__}: {type(e).__name__}: {e}"
        warnings.warn(f"enable_conditionals: {reason}; it runs unconverted (an `if` on a DataNode in it is an error)",
                      stacklevel=3)
        return None


def convert_pipeline_function(func):
    """`func` rewritten for conditionals; a SluiceError naming the reason when it cannot be."""
    try:
        if isinstance(func, _pytypes.MethodType) and isinstance(func.__func__, _pytypes.FunctionType):
            return _pytypes.MethodType(convert(func.__func__), func.__self__)
        if not isinstance(func, _pytypes.FunctionType):
            raise _ConversionError(f"{func!r} is not a Python function (a `def`)")
        return convert(func)
    except _ConversionError as e:
        raise SluiceError(f"enable_conditionals=True: cannot convert the pipeline definition: {e}") from None


def do_not_convert(func=None):
    """DALI's ``@do_not_convert``: the function is not rewritten when called from a pipeline definition
    with conditionals enabled (it must not branch on DataNodes). Returns the function itself."""
    if func is None:
        return do_not_convert
    if getattr(func, "_is_pipeline_def", False):
        raise ValueError("Pipeline definition cannot be marked with @do_not_convert.")
    try:
        func._sluice_do_not_convert = True
    except (AttributeError, TypeError):
        pass  # a builtin or a C function: never converted anyway
    return func


class _ConversionError(Exception):
    pass


def convert(func):
    """The function with its ``if``s, ``and``/``or``/``not`` and calls rewritten (cached). Raises
    _ConversionError (a clear reason) when it cannot be."""
    cached = _converted.get(func)
    if cached is not None:
        return cached
    code = func.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        raise _ConversionError(f"{func.__qualname__} is a generator or coroutine function")
    try:
        lines, first = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or code.co_filename
    except (OSError, TypeError) as e:
        raise _ConversionError(f"the source of {func.__qualname__} is not available ({e})") from None
    source = "".join(lines)
    indented = source[:1].isspace()
    try:
        module = ast.parse(("if 1:\n" + source) if indented else source, filename=filename)
    except SyntaxError as e:
        raise _ConversionError(f"the source of {func.__qualname__} does not parse on its own ({e.msg})") from None
    tree = module.body[0].body[0] if indented else module.body[0]
    if not isinstance(tree, ast.FunctionDef) or tree.name != code.co_name:
        raise _ConversionError(f"the source of {func.__qualname__} is not a plain `def` (a lambda or a generated "
                               "function)")
    ast.increment_lineno(tree, first - (2 if indented else 1))
    tree.decorator_list = []
    _canonicalize_returns(tree)
    _Rewriter(filename).visit_function(tree, top=True)
    # A method is compiled inside a class of its class's name, so that private names (`self.__x`) are
    # mangled as in the original; its `__class__` cell (zero-argument super()) is the original's.
    parts = func.__qualname__.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None
    inner = tree
    if owner is not None:
        inner = ast.ClassDef(name=owner, bases=[], keywords=[], body=[tree], decorator_list=[])
        if sys.version_info >= (3, 12):
            inner.type_params = []
    result = ast.Name(id=tree.name, ctx=ast.Load()) if owner is None else \
        ast.Attribute(value=ast.Name(id=owner, ctx=ast.Load()), attr=tree.name, ctx=ast.Load())
    factory = ast.FunctionDef(
        name="_sluice_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in list(code.co_freevars) + [_AG]],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[inner, ast.Return(value=result)], decorator_list=[], returns=None)
    if sys.version_info >= (3, 12):
        factory.type_params = []
    wrapper = ast.Module(body=[factory], type_ignores=[])
    for n in (factory, inner, result, *ast.walk(result)):
        ast.copy_location(n, tree)
    ast.fix_missing_locations(wrapper)
    compiled = compile(wrapper, filename, "exec", dont_inherit=True)
    new_code = _find_code(compiled, tree.name, tree.lineno)
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    missing = [n for n in new_code.co_freevars if n not in cells and n != _AG]
    if missing:
        raise _ConversionError(f"{func.__qualname__} refers to {missing} from an enclosing scope it did not "
                               "capture")
    closure = tuple(cells[n] if n in cells else _pytypes.CellType(sys.modules[__name__]) for n in new_code.co_freevars)
    new = _pytypes.FunctionType(new_code, func.__globals__, func.__name__, func.__defaults__, closure)
    new.__kwdefaults__ = func.__kwdefaults__
    new.__qualname__ = func.__qualname__
    new.__module__ = func.__module__
    new.__doc__ = func.__doc__
    new.__dict__.update(func.__dict__)
    new.__annotations__ = dict(getattr(func, "__annotations__", {}) or {})
    _converted[func] = new  # (the converted function holds no reference to the original: the cache is weak)
    return new


def _find_code(code, name, lineno):
    """The code object of function `name` defined at `lineno` inside `code` (depth first)."""
    for const in code.co_consts:
        if isinstance(const, _pytypes.CodeType):
            if const.co_name == name and const.co_firstlineno == lineno and const.co_flags & inspect.CO_NEWLOCALS:
                return const
            found = _find_code(const, name, lineno)
            if found is not None:
                return found
    return None
