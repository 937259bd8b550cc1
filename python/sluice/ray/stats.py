"""Statistics of a Sluice dataset on Ray: per-actor images/s and Ray's per-batch cost on the producer side.

Each actor reports one record per shard it finished to a small named actor (no CPU reserved);
`statistics(name)` reads them from anywhere in the cluster: the driver, a Ray Train worker.

Per shard an actor measures: `pipeline_s`, the time in Sluice (running the pipeline, copying its
outputs into NumPy arrays, postprocess); `ray_s`, the time between handing a batch to Ray (`yield`)
and Ray giving control back: Ray Data converting the batch into its output block and, when the block
reaches DataContext.target_max_block_size, storing it in the object store (a shard's last block is
stored after the shard's generator returns, outside this measure);
`wall_s`, the whole shard including the pipeline's build; `actor_cpu_s`, the actor process's CPU time
(all its threads) from its start to the end of the shard. A shard re-run after an actor died is
recorded again (its first, lost run is not: the actor died before reporting it).
"""
import collections

STATS_PREFIX = "sluice.ray.stats:"
# The driver's handles of the collectors it started: a named actor lives while a handle to it does.
_collectors = {}


class StatsCollector:
    """The named actor the ShardWorkers report to. Methods are called one at a time (an actor)."""

    def __init__(self):
        self._records = []

    def record(self, actor, epoch, shard, images, batches, wall_s, pipeline_s, ray_s, actor_cpu_s):
        self._records.append(dict(actor=actor, epoch=epoch, shard=shard, images=images, batches=batches,
                                  wall_s=wall_s, pipeline_s=pipeline_s, ray_s=ray_s, actor_cpu_s=actor_cpu_s))

    def records(self):
        return list(self._records)

    def clear(self):
        self._records.clear()


def start_collector(name):
    """The collector named `name` (created if absent); returns its full actor name."""
    import ray
    full = STATS_PREFIX + name
    _collectors[full] = ray.remote(num_cpus=0)(StatsCollector).options(name=full, get_if_exists=True).remote()
    return full


def statistics(name="default", clear=False):
    """Per-actor and total figures of the datasets made with from_pipeline(..., stats_name=name).

    Returns {"actors": {actor: {...}}, "total": {...}} where each entry has images, batches, shards,
    wall_s, images_per_s (images / wall_s of that actor's shards; with shards_per_actor > 1 the shards
    overlap, so this is per shard stream), pipeline_s, ray_s, ray_ms_per_batch (ray_s / batches: Ray's
    producer-side cost per batch) and cpu_s (the actors' process CPU time, summed over actors)."""
    import ray
    try:
        collector = ray.get_actor(STATS_PREFIX + name)
    except ValueError:
        raise ValueError(f"no sluice.ray statistics named '{name}': pass stats_name='{name}' to from_pipeline "
                         f"(in this Ray namespace)") from None
    records = ray.get(collector.records.remote())
    if clear:
        ray.get(collector.clear.remote())
    per_actor = collections.defaultdict(list)
    for r in records:
        per_actor[r["actor"]].append(r)
    return {"actors": {a: _summary(rs) for a, rs in per_actor.items()}, "total": _summary(records)}


def _summary(records):
    images = sum(r["images"] for r in records)
    batches = sum(r["batches"] for r in records)
    wall = sum(r["wall_s"] for r in records)
    ray_s = sum(r["ray_s"] for r in records)
    cpu = {}
    for r in records:
        cpu[r["actor"]] = max(cpu.get(r["actor"], 0.0), r["actor_cpu_s"])
    return dict(cpu_s=sum(cpu.values()), images=images, batches=batches, shards=len(records), wall_s=wall,
                pipeline_s=sum(r["pipeline_s"] for r in records), ray_s=ray_s,
                images_per_s=images / wall if wall else 0.0,
                ray_ms_per_batch=1e3 * ray_s / batches if batches else 0.0)
