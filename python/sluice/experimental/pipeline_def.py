"""DALI's ``nvidia.dali.pipeline.experimental.pipeline_def`` (``sluice.pipeline.experimental``):
``pipeline_def`` plus ``debug``. It lives here, not in ``sluice.pipeline``, because debug mode
(``sluice.experimental.debug_mode``) is built on the pipeline; ``install()`` (called by
``sluice/__init__``) puts it in ``sluice.pipeline.experimental``."""
import functools
import inspect

from .. import pipeline as _pipeline


def pipeline_def(fn=None, *, enable_conditionals=False, debug=False, **pipeline_kwargs):
    """DALI's ``nvidia.dali.pipeline.experimental.pipeline_def``: ``pipeline_def`` plus ``debug``
    (also accepted when the factory is called): the function runs eagerly at every ``run()``,
    operator by operator, and its DataNodes hold data (``get()``, printing). See
    ``sluice.experimental.debug_mode``."""
    graph_def = _pipeline.pipeline_def(enable_conditionals=enable_conditionals, **pipeline_kwargs)

    def decorator(func):
        graph_factory = graph_def(func)
        func_params = inspect.signature(func).parameters

        @functools.wraps(func)
        def create_pipeline(*args, **kwargs):
            debug_on = kwargs.pop("debug", debug) if "debug" not in func_params else debug
            if not debug_on:
                return graph_factory(*args, **kwargs)
            from .debug_mode import DebugPipeline
            if kwargs.get("enable_conditionals", enable_conditionals):
                raise NotImplementedError("pipeline_def(debug=True) with enable_conditionals: debug mode does not "
                                          "run conditionals in this version of Sluice")
            ctor = {k: v for k, v in kwargs.items() if k in _pipeline._PIPELINE_PARAMS and k not in func_params}
            fn_kwargs = {k: v for k, v in kwargs.items() if k not in ctor and k not in _pipeline._DEF_PARAMS}
            return DebugPipeline(functools.partial(func, *args, **fn_kwargs), **{**pipeline_kwargs, **ctor})

        create_pipeline._is_pipeline_def = True
        return create_pipeline

    return decorator(fn) if fn is not None else decorator


def install():
    pipeline_def.__module__ = _pipeline.experimental.__name__
    _pipeline.experimental.pipeline_def = pipeline_def
