"""Framework plugins, imported on demand: ``sluice.plugin.pytorch`` and ``sluice.plugin.jax`` (iterators,
and their ``fn`` function operators), ``sluice.plugin.numba`` (``NumbaFunction``)."""
