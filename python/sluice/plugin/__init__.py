"""Framework iterators: ``sluice.plugin.pytorch`` and ``sluice.plugin.jax`` (imported on demand)."""
