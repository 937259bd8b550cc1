"""Runs sluice prepare's shard jobs: in this process, or in a pool of worker processes (spawned)
that report each sample to the parent's progress bar through a queue."""
import multiprocessing as mp
import queue

from .prepare_shards import write_shard

# In a worker process, the queue to the parent's progress bar. A multiprocessing queue reaches
# workers only when they start (the pool's initializer), not as a task's argument.
_progress_queue = None


def _init_worker(q):
    global _progress_queue
    _progress_queue = q


def _write_shard_in_worker(job):
    return write_shard(job, _progress_queue.put)


def write_shards(jobs, workers, bar, on_result):
    """Writes the shards of `jobs` with up to `workers` processes (one: in this process), advancing
    `bar` by one per sample and calling `on_result` with each shard's result when it is done;
    returns the results. A job's PrepareError (--strict) is raised here."""
    workers = min(workers, len(jobs))
    if workers <= 1:
        results = []
        for job in jobs:
            r = write_shard(job, lambda n: bar.update(advance=n))
            on_result(r)
            results.append(r)
        return results
    # spawn, not fork: the caller may hold threads (a running pipeline's executor).
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    results = []
    with ctx.Pool(workers, initializer=_init_worker, initargs=(q,)) as pool:
        asyncs = [pool.apply_async(_write_shard_in_worker, (job,)) for job in jobs]
        remaining = list(asyncs)
        while remaining:
            try:
                bar.update(advance=q.get(timeout=0.1))
                continue
            except queue.Empty:
                pass
            still = []
            for a in remaining:
                if a.ready():
                    r = a.get()  # re-raises the worker's PrepareError (--strict)
                    on_result(r)
                    results.append(r)
                else:
                    still.append(a)
            remaining = still
        pool.close()
        pool.join()
    return results
