"""DataNode: a symbolic batch in a pipeline graph, the output of one operator call.

Defined in :mod:`sluice.graph` with the calls that make DataNodes (a node's ``gpu()`` and its
arithmetic are operator calls); this module keeps DALI's import path ``data_node.DataNode``.
"""
from .graph import DataNode, newaxis

__all__ = ["DataNode", "newaxis"]
