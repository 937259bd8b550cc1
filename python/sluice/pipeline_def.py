"""@pipeline_def: turns a graph-defining function into a pipeline factory (bare or with arguments).

Keyword arguments given at call time go to the Pipeline constructor when it takes them and the
function does not (the function's own parameters win); the rest go to the function.
"""
import functools
import inspect

from .pipeline import Pipeline

_PIPELINE_PARAMS = set(inspect.signature(Pipeline.__init__).parameters) - {"self"}


def pipeline_def(fn=None, **pipeline_kwargs):
    def decorator(func):
        func_params = inspect.signature(func).parameters
        takes_var_kw = any(p.kind == p.VAR_KEYWORD for p in func_params.values())

        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            ctor = {k: v for k, v in kwargs.items() if k in _PIPELINE_PARAMS and k not in func_params}
            fn_kwargs = {k: v for k, v in kwargs.items() if k not in ctor}
            if not takes_var_kw:
                unknown = [k for k in fn_kwargs if k not in func_params]
                if unknown:
                    raise TypeError(f"{func.__name__}() got unexpected keyword argument(s) {unknown}: neither "
                                    f"the function nor Pipeline takes them")
            pipe = Pipeline(**{**pipeline_kwargs, **ctor})
            with pipe:
                outputs = func(*args, **fn_kwargs)
                pipe.set_outputs(*(outputs if isinstance(outputs, (list, tuple)) else (outputs,)))
            return pipe

        return create_pipeline

    return decorator(fn) if fn is not None else decorator
