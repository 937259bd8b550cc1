"""DALI's ``nvidia.dali.experimental`` Python side: ``dynamic`` (eager operators on tensors and
batches, imported as ``import sluice.experimental.dynamic as ndd``).

Submodules are imported on first use, so ``import sluice`` does not pay for them.
"""
import importlib

_SUBMODULES = ("dynamic", "torchvision")


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_SUBMODULES)
