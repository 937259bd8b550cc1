"""DALI's ``nvidia.dali.plugin.pytorch.experimental``: ``proxy`` (a pipeline serving a PyTorch
DataLoader's workers), imported on first use."""
import importlib


def __getattr__(name):
    if name == "proxy":
        return importlib.import_module(f"{__name__}.proxy")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["proxy"]
