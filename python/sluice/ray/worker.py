"""The callable class Ray Data runs on its actor pool: one Sluice pipeline per shard, batches out as rows.

Contract (what from_pipeline hands each actor): `pipeline_fn(shard, seed)` returns a Sluice Pipeline
(built or not) that reads exactly the work unit `shard` (a `sluice prepare` tar, a slice of a file
list, a TFRecord file: whatever picklable value the caller put in `shards`) with its reader named
`reader_name`, and whose outputs are the columns `output_names`. The actor runs it for
ceil(n / batch_size) iterations, n = the reader's epoch size, and cuts the last batch to n rows, so
each shard yields each of its samples once, in the order its seed gives.

One row per sample, one Ray block per Sluice batch; the rows carry `epoch` (int32) and
`sample_key` (int64: shard index << 32 | position in the shard's read order), which identify a
sample within an epoch because the read order is a pure function of (seed, epoch, shard).
Thread-safety: with shards_per_actor > 1 Ray calls __call__ from that many threads at once (each call
builds its own pipeline); the object's fields are only read after __init__.
"""
import os
import socket
import time

import numpy as np

from . import schedule


class ShardError(RuntimeError):
    """A shard could not be read or converted; the message names the shard and the actor."""


class ShardWorker:
    """Ray Data's callable class (map_batches with an ActorPoolStrategy). Constructed once per actor."""

    def __init__(self, pipeline_fn, shards, output_names, reader_name, seed, postprocess, delivered, stats_name):
        self._pipeline_fn = pipeline_fn
        self._shards = shards
        self._output_names = list(output_names)
        self._reader_name = reader_name
        self._seed = seed
        self._postprocess = postprocess
        self._delivered = delivered or {}
        self._stats = _stats_actor(stats_name)
        import ray
        ctx = ray.get_runtime_context()
        self._actor = f"actor {ctx.get_actor_id()} (pid {os.getpid()} on {socket.gethostname()})"
        self._cpu0 = time.process_time()  # the actor process's CPU time, all threads

    def __call__(self, items):
        # Ray hands one work item per call (batch_size=1 on the input dataset).
        for epoch, shard in zip(items["epoch"].tolist(), items["shard"].tolist()):
            yield from self._run_shard(int(epoch), int(shard))

    def _run_shard(self, epoch, shard):
        unit = self._shards[shard]
        where = f"shard {shard} ({unit!r}) of epoch {epoch} in {self._actor}"
        start = time.perf_counter()
        try:
            pipe = self._pipeline_fn(unit, schedule.shard_seed(self._seed, epoch, shard))
            pipe.build()
            n = int(pipe.epoch_size(self._reader_name))
        except Exception as e:
            raise ShardError(f"sluice.ray: {where} could not be opened: {e}") from e
        skip = self._delivered.get((epoch, shard), set())
        batch_size = pipe.batch_size
        iterations = -(-n // batch_size)
        taken = images = 0
        pipeline_s = ray_s = 0.0
        try:
            if iterations:
                t = time.perf_counter()
                pipe.schedule_run()  # fills the prefetch queue; later calls add one iteration each
                pipeline_s += time.perf_counter() - t
            while taken < iterations:
                t = time.perf_counter()
                try:
                    outs = pipe.share_outputs()
                    rows = min(batch_size, n - taken * batch_size)
                    columns = self._columns(outs, rows)
                finally:
                    pipe.release_outputs()
                first = taken * batch_size
                taken += 1
                if taken + pipe._scheduled < iterations:  # never run past the shard's last batch
                    pipe.schedule_run()
                if self._postprocess is not None:
                    columns = self._postprocess(columns)
                _check_columns(columns, rows)
                columns["epoch"] = np.full(rows, epoch, np.int32)
                columns["sample_key"] = (np.int64(shard) << schedule.POSITION_BITS) + np.arange(
                    first, first + rows, dtype=np.int64)
                if skip:
                    keep = np.array([first + i not in skip for i in range(rows)])
                    columns = {k: v[keep] for k, v in columns.items()}
                    rows = int(keep.sum())
                pipeline_s += time.perf_counter() - t
                if rows:
                    images += rows
                    t = time.perf_counter()
                    yield columns  # Ray adds it to its output block (and stores the block once it is full)
                    ray_s += time.perf_counter() - t
        except ShardError:
            raise
        except Exception as e:
            raise ShardError(f"sluice.ray: {where} failed after {taken} of {iterations} batches: {e}") from e
        finally:
            del pipe
        if self._stats is not None:
            self._stats.record.remote(self._actor, epoch, shard, images, taken, time.perf_counter() - start,
                                      pipeline_s, ray_s, time.process_time() - self._cpu0)

    def _columns(self, outs, rows):
        if len(outs) != len(self._output_names):
            raise ValueError(f"the pipeline has {len(outs)} outputs but output_names names "
                             f"{len(self._output_names)}: {self._output_names}")
        columns = {}
        for name, out in zip(self._output_names, outs):
            if hasattr(out, "as_cpu"):
                out = out.as_cpu()
            if out.is_dense_tensor():
                columns[name] = np.array(out.as_array()[:rows])  # a copy: the pipeline reuses its buffers
            else:  # a list of per-sample copies, for postprocess to make one array of
                columns[name] = [np.array(out.at(i)) for i in range(rows)]
        return columns


def _check_columns(columns, rows):
    for name, value in columns.items():
        if not isinstance(value, np.ndarray):
            raise ValueError(f"output '{name}' is not dense (its samples differ in shape): resize or pad it in the "
                             f"pipeline, or pass postprocess=... that makes it one array (e.g. sluice.ray.ascii_to_int)")
        if len(value) != rows:
            raise ValueError(f"column '{name}' has {len(value)} rows after postprocess, the batch {rows}")


def ascii_to_int(samples):
    """ASCII decimal integers (the .cls members of `sluice prepare` shards), one uint8 array each, as int64."""
    return np.array([int(bytes(np.asarray(s, np.uint8)).decode("ascii").strip() or -1) for s in samples], np.int64)


def _stats_actor(name):
    if not name:
        return None
    import ray
    try:
        return ray.get_actor(name)
    except ValueError:
        return None
