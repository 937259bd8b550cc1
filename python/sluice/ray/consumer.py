"""The trainer's side: exactly-once accounting per epoch (dropping re-delivered rows, checkpoint state)
and normalisation on the trainer's device.

Why duplicates can occur: an actor that dies mid-shard has already handed some of the shard's blocks
to Ray; Ray restarts the actor and re-runs the whole shard task, and Ray Data may deliver blocks of
both runs. The rows are identical (the read order is a pure function of (seed, epoch, shard)), and
so are their (epoch, sample_key); EpochTracker.filter drops every row whose key it has seen.
Across N consumers (streaming_split, Ray Train workers) each consumer sees its own rows; a re-run's
blocks can go to a different consumer than the first run's, so the exact-once guarantee across
consumers needs the consumers' keys combined: EpochTracker.merge(states) (a checkpoint gathers them
anyway), or all_gather of the keys per step where a duplicate sample must never reach the model.
"""
import collections

import numpy as np

from .schedule import POSITION_BITS


class EpochTracker:
    """Keys (epoch, sample_key) of the rows this consumer has taken; drops repeats; checkpoint state.

    Not thread-safe: one per consumer (iterator)."""

    def __init__(self):
        self._seen = collections.defaultdict(set)  # epoch -> set of sample keys

    def filter(self, batch):
        """The batch (a dict of NumPy arrays or torch tensors with 'epoch' and 'sample_key') without the
        rows already seen, nor repeats within it; records the rest. Returns the batch itself when
        nothing is dropped."""
        epochs = np.asarray(_numpy(batch["epoch"])).tolist()
        keys = np.asarray(_numpy(batch["sample_key"])).tolist()
        keep = []
        for i, (e, k) in enumerate(zip(epochs, keys)):
            seen = self._seen[e]
            if k not in seen:
                seen.add(k)
                keep.append(i)
        if len(keep) == len(keys):
            return batch
        return {name: value[_index(value, keep)] for name, value in batch.items()}

    def count(self, epoch):
        """Rows taken (after dropping repeats) in `epoch`."""
        return len(self._seen.get(epoch, ()))

    def keys(self, epoch):
        return set(self._seen.get(epoch, ()))

    def state(self, shard_sizes=None):
        """Checkpoint state: {"partial": {"epoch:shard": [positions]}, "complete": [[epoch, shard]]}.

        shard_sizes[shard] (the rows each shard yields; optional) moves fully read shards to "complete",
        so that a resumed run skips them without opening them. Pass it to from_pipeline(resume=...)."""
        partial, complete = {}, []
        for epoch, keys in self._seen.items():
            by_shard = collections.defaultdict(list)
            for k in keys:
                by_shard[k >> POSITION_BITS].append(k & ((1 << POSITION_BITS) - 1))
            for shard, positions in by_shard.items():
                if shard_sizes is not None and len(positions) == shard_sizes[shard]:
                    complete.append([epoch, shard])
                else:
                    partial[f"{epoch}:{shard}"] = sorted(positions)
        return {"partial": partial, "complete": sorted(complete)}

    @staticmethod
    def merge(states):
        """One state from several consumers' state() (e.g. gathered from every Ray Train worker)."""
        partial = collections.defaultdict(set)
        complete = set()
        for s in states:
            for k, positions in s.get("partial", {}).items():
                partial[k].update(positions)
            complete.update(tuple(c) for c in s.get("complete", ()))
        return {"partial": {k: sorted(v) for k, v in partial.items()}, "complete": sorted(map(list, complete))}


def normalize(images, mean, std, *, layout="HWC", device=None, dtype=None):
    """uint8 images (N, H, W, C) or (N, C, H, W) as float (N, C, H, W), (x - mean) / std, computed on
    `device` (moved there as uint8 first: a quarter of the float bytes cross the bus and the network).

    mean, std: per channel, in the images' 0..255 scale."""
    import torch
    if layout not in ("HWC", "CHW"):
        raise ValueError(f"layout must be 'HWC' or 'CHW', not {layout!r}")
    x = torch.as_tensor(images)
    if device is not None:
        x = x.to(device, non_blocking=True)
    dtype = dtype or torch.float32
    if layout == "HWC":
        x = x.permute(0, 3, 1, 2)
    mean_t = torch.as_tensor(mean, dtype=dtype, device=x.device).view(1, -1, 1, 1)
    std_t = torch.as_tensor(std, dtype=dtype, device=x.device).view(1, -1, 1, 1)
    return ((x.to(dtype) - mean_t) / std_t).contiguous()


def _numpy(v):
    return v.cpu().numpy() if hasattr(v, "cpu") else v


def _index(value, keep):
    if hasattr(value, "cpu"):  # a torch tensor
        import torch
        return torch.as_tensor(keep, dtype=torch.long, device=value.device)
    return np.asarray(keep, dtype=np.int64)
