"""Sluice pipelines on Ray Data: preprocessing on a cluster's CPU nodes, streamed to trainers.

    import sluice.ray
    ds = sluice.ray.from_pipeline(make_pipeline, shards=tars, output_names=["image", "label"], actors=4)
    for batch in ds.iter_torch_batches(batch_size=64): ...

Needs Ray (`pip install sluice[ray]`); `import sluice` alone never imports it. See docs/ray.md
for the epoch, checkpoint and fault semantics.
"""
try:
    import ray as _ray  # noqa: F401
except ImportError as e:
    raise ImportError("sluice.ray needs Ray Data: pip install 'sluice[ray]' (ray[data,train])") from e

from .consumer import EpochTracker, normalize
from .dataset import from_pipeline
from .schedule import shard_order, shard_seed, split_key
from .stats import statistics
from .worker import ShardError, ascii_to_int

__all__ = ["from_pipeline", "EpochTracker", "normalize", "statistics", "ShardError", "ascii_to_int",
           "shard_order", "shard_seed", "split_key"]
