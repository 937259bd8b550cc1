"""The work plan of a Sluice dataset on Ray: which shard runs in which epoch, in what order, with what seed.

Everything here is a pure function of (seed, epoch, shard index), so every actor, every retry and
every resumed job computes the same plan without talking to each other.
"""
import numpy as np

# A row's sample key packs (shard index, position in the shard's read order) into one int64.
POSITION_BITS = 32
MAX_SHARDS = 1 << 31


def shard_order(seed, epoch, num_shards):
    """The shards' indices in the order epoch `epoch` submits them: a permutation drawn from (seed, epoch)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([_u32(seed), _u32(epoch), 0x5EED])))
    return [int(i) for i in rng.permutation(num_shards)]


def shard_seed(seed, epoch, shard):
    """The seed of the pipeline that reads shard `shard` in epoch `epoch` (a non-negative int32)."""
    state = np.random.SeedSequence([_u32(seed), _u32(epoch), _u32(shard), 0x5A4D]).generate_state(1)[0]
    return int(state) & 0x7FFFFFFF


def sample_key(shard, position):
    """The int64 key of a row: the shard's index in `shards` and the row's position in the shard's read order."""
    return (int(shard) << POSITION_BITS) | int(position)


def split_key(key):
    """(shard, position) of a sample key (int or NumPy integer array)."""
    return key >> POSITION_BITS, key & ((1 << POSITION_BITS) - 1)


def work_items(num_shards, seed, epochs, complete=()):
    """The input rows of the dataset: one per (epoch, shard), epochs in order, shards permuted per epoch.

    complete: (epoch, shard) pairs whose every row was delivered before a resume; they are left out."""
    complete = set(complete)
    return [{"epoch": epoch, "shard": shard, "order": order}
            for epoch in epochs
            for order, shard in enumerate(shard_order(seed, epoch, num_shards))
            if (epoch, shard) not in complete]


def _u32(v):
    v = int(v)
    if v < 0:
        raise ValueError(f"seeds and epochs must be non-negative, got {v}")
    return v & 0xFFFFFFFF
