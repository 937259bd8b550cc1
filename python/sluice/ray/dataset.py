"""from_pipeline: a ray.data.Dataset whose blocks are batches of Sluice pipelines run on a Ray actor pool.

Ray Data does the scheduling (actors across nodes, one shard per actor task, back-pressure), the
transport (numpy blocks through the shared-memory object store) and the retries; Sluice only says
which shard runs with which seed (schedule.py) and runs the pipeline (worker.py).
"""
import os
import pickle
import warnings

from . import schedule
from .stats import start_collector
from .worker import ShardWorker


def from_pipeline(pipeline_fn, shards, *, output_names, reader_name="Reader", actors=1, cpus_per_actor=None,
                  seed=0, epoch=0, epochs=1, postprocess=None, resume=None, stats_name="default",
                  max_restarts=3, max_task_retries=3, preserve_order=False, shards_per_actor=2):
    """Returns a ray.data.Dataset of the samples of `shards`, decoded by Sluice pipelines inside Ray actors.

    pipeline_fn(shard, seed) -> sluice.Pipeline: reads exactly the work unit `shard` (one element of
        `shards`) with the pipeline seed `seed`, has a reader named `reader_name` and one output per
        name in `output_names`. It runs inside the actors, so it must be picklable (a module-level
        function, or a functools.partial of one); TypeError here otherwise.
    shards: the work units (paths of `sluice prepare` tars, slices of a file list, TFRecord files).
    actors, cpus_per_actor: the actor pool's size and each actor's CPUs (default: the pipeline's
        num_threads, read from a pipeline built for shard 0 here; set it to skip that).
    seed, epoch, epochs: the dataset covers epochs epoch .. epoch+epochs-1; in each, the shards are
        submitted in an order permuted by (seed, epoch) and shard s reads with the seed
        schedule.shard_seed(seed, epoch, s), so every batch's content is a function of (seed, epoch, s).
    postprocess(columns) -> columns: runs in the actor on each batch's dict of NumPy arrays (outputs
        that are not dense arrive as lists of per-sample arrays), e.g. to turn ASCII labels into ints.
    resume: EpochTracker.state() of a previous run: shards it saw complete are skipped, and the rows
        it saw of partially read shards are dropped in the actors (the shard is read again from its
        start: its order is deterministic, so exactly the missing rows come out).
    stats_name: the name statistics() reads this dataset's per-actor figures under (None: none kept).
    max_restarts, max_task_retries: Ray's retry budget for an actor that dies (each restart re-runs
        the shard it was reading); when it is spent, iterating raises Ray's ActorDiedError/RayTaskError.
    shards_per_actor: shards an actor reads at once (Ray Data's max_concurrent_calls_per_actor with
        true multi-threading): 2 starts the next shard's pipeline (build, first batches) while the
        last batches of the current one are handed over, so that short shards leave no idle gaps; each
        shard's pipeline has its own threads, so an actor may run up to shards_per_actor x num_threads
        threads on its cpus_per_actor CPUs. 1: strictly one shard after the other.
    preserve_order: hand out blocks in submission order (Ray Data's execution option; it holds
        finished blocks back until the ones before them are done).

    Rows: one per sample, columns `output_names` + `epoch` (int32) + `sample_key` (int64, shard << 32 |
    position in the shard's read order); each Sluice batch is one Ray block. Importing this module
    imports Ray; `import sluice` does not.
    """
    import ray

    shards = list(shards)
    if not shards:
        raise ValueError("from_pipeline: `shards` is empty")
    if len(shards) >= schedule.MAX_SHARDS:
        raise ValueError(f"from_pipeline: at most {schedule.MAX_SHARDS - 1} shards")
    if actors < 1 or epochs < 1:
        raise ValueError(f"from_pipeline: actors and epochs must be >= 1 (got {actors}, {epochs})")
    _check_picklable(pipeline_fn=pipeline_fn, shards=shards, postprocess=postprocess)
    if cpus_per_actor is None:
        pipe = pipeline_fn(shards[0], schedule.shard_seed(seed, epoch, 0))
        threads = pipe.num_threads
        # num_threads="auto" may use every CPU the actor's process can run on.
        cpus_per_actor = max(1, len(os.sched_getaffinity(0)) if threads == "auto" else int(threads))
        del pipe

    complete, delivered = set(), {}
    if resume is not None:
        complete = {tuple(k) for k in resume.get("complete", ())}
        delivered = {tuple(map(int, k.split(":"))): set(v) for k, v in resume.get("partial", {}).items()}
    items = schedule.work_items(len(shards), seed, range(epoch, epoch + epochs), complete)
    if not items:
        raise ValueError("from_pipeline: `resume` says every shard of these epochs was delivered")

    stats_actor = start_collector(stats_name) if stats_name else None
    work = ray.data.from_items(items, override_num_blocks=len(items))
    work.context.execution_options.preserve_order = preserve_order  # this dataset's copy of the context
    with warnings.catch_warnings():
        # Ray 2.60 warns that **ray_remote_args (our max_restarts, max_task_retries) will be removed
        # in Ray 2.64; there is no named parameter for them yet. sluice[ray] pins ray 2.60.
        warnings.filterwarnings("ignore", message=".*ray_remote_args.*deprecated")
        return _map(work, ShardWorker, actors, cpus_per_actor, shards_per_actor, max_restarts, max_task_retries,
                    dict(pipeline_fn=pipeline_fn, shards=shards, output_names=list(output_names),
                         reader_name=reader_name, seed=seed, postprocess=postprocess, delivered=delivered,
                         stats_name=stats_actor))


def _map(work, worker, actors, cpus_per_actor, shards_per_actor, max_restarts, max_task_retries, constructor_kwargs):
    import ray
    if shards_per_actor > 1:
        compute = ray.data.ActorPoolStrategy(size=actors, max_concurrent_calls_per_actor=shards_per_actor,
                                             enable_true_multi_threading=True)
    else:
        compute = ray.data.ActorPoolStrategy(size=actors)
    return work.map_batches(
        worker,
        batch_size=1,
        compute=compute,
        num_cpus=cpus_per_actor,
        fn_constructor_kwargs=constructor_kwargs,
        max_restarts=max_restarts,
        max_task_retries=max_task_retries,
    )


def _check_picklable(**values):
    from ray import cloudpickle
    for name, value in values.items():
        if value is None:
            continue
        try:
            cloudpickle.dumps(value)
        except (pickle.PicklingError, TypeError, AttributeError, ValueError) as e:
            what = getattr(value, "__qualname__", None) or type(value).__name__
            raise TypeError(f"from_pipeline: {name} {what!r} cannot be pickled, so it cannot be sent to the Ray "
                            f"actors ({type(e).__name__}: {e}); make it a module-level function (or a "
                            f"functools.partial of one) whose arguments can be pickled") from e
