"""The parallel external source (``external_source(parallel=True)``): worker processes run the
callback; samples come back through shared memory.

Each batch is split into ``py_num_workers`` contiguous chunks of samples (one task per chunk; a
``batch=True`` callback is one task per batch); chunk k of every batch goes to worker k, so the
pool knows which samples a dead worker was computing. An iterable or a generator function
(``batch=True`` only, as in DALI) has state, so it runs in ONE worker process, which iterates over
it in order: ``iter(source)`` (or ``source()``) once, ``StopIteration`` ending the epoch; as in DALI
it is restarted only by ``cycle``: "quiet" at once, "raise" at the next epoch (without ``cycle``
later epochs end at once); the main process still goes on while it works. A worker writes its chunk's arrays into one
new ``multiprocessing.shared_memory`` block and sends back only its name and the arrays' offsets,
shapes and dtypes; the main process copies them out and unlinks the block. Batches are assembled
by (iteration, sample index), so the result does not depend on which worker finished first.
``prefetch_queue_depth`` batches are computed ahead of the one the pipeline is fed.
"""
import collections
import gc
import itertools
import multiprocessing
import multiprocessing.connection
import os
import queue
import time
import traceback
from multiprocessing import resource_tracker, shared_memory

import numpy as np

from .errors import SluiceError

# DALI's callback arguments (re-exported by sluice.external_source): the sample's place in the epoch
# and batch, or the batch's.
from .types import BatchInfo, SampleInfo  # noqa: E402 (DALI's classes, defined in sluice.types)

_ALIGN = 64
_POOL_NUMBERS = itertools.count()
_POLL_S = 0.05


class _StopMarker:
    pass


def _to_arrays(data, num_outputs, batch):
    """The callback's result as a list (per output) of lists of C-contiguous sample arrays."""
    from .tensors import to_sample_array, to_samples
    if batch:
        outputs = list(data) if num_outputs is not None else [data]
        return [[np.ascontiguousarray(s) for s in to_samples(o)] for o in outputs]
    outputs = list(data) if num_outputs is not None else [data]
    return [[np.ascontiguousarray(to_sample_array(o))] for o in outputs]


def _block_name(prefix, task_id):
    """The shared memory block of a task's result. Named by the pool, not at random, so that a worker
    killed after creating the block and before reporting it cannot leak it: the pool unlinks every
    unreported task's name when it closes."""
    return f"{prefix}{task_id}"


def _write_shm(outputs, name):
    """Writes ``outputs`` (list per output of list of arrays) into a new shared memory block ``name``."""
    meta, offset = [], 0
    for arrays in outputs:
        m = []
        for a in arrays:
            m.append((offset, a.shape, a.dtype.str))
            offset += (a.nbytes + _ALIGN - 1) // _ALIGN * _ALIGN
        meta.append(m)
    try:
        shm = shared_memory.SharedMemory(name=name, create=True, size=max(offset, 1))
    except FileExistsError:  # a block the pool has not freed yet (a retried task): replace it
        _unlink(name)
        shm = shared_memory.SharedMemory(name=name, create=True, size=max(offset, 1))
    try:
        for arrays, m in zip(outputs, meta):
            for a, (off, shape, dt) in zip(arrays, m):
                if a.nbytes:
                    np.ndarray(shape, dtype=dt, buffer=shm.buf, offset=off)[...] = a
        return shm.name, meta
    finally:
        shm.close()


class _Iteration:
    """An iterable or generator function source, iterated in the worker: one pass per epoch."""

    def __init__(self, source, cycle):
        self.source = source
        self.cycle = cycle
        self.epoch = None
        self.iterator = None

    def _fresh(self):
        import inspect
        return iter(self.source() if inspect.isgeneratorfunction(self.source) else self.source)

    def next_batch(self, info):
        if info.epoch_idx != self.epoch:
            self.epoch = info.epoch_idx
            # As DALI's: a non-cycling source is iterated once (later epochs end at once); "raise"
            # starts a fresh pass each epoch.
            if self.iterator is None or self.cycle == "raise":
                self.iterator = self._fresh()
        try:
            return next(self.iterator)
        except StopIteration:
            if self.cycle != "quiet":
                raise  # and again for the batches prefetched past the end: the iterator stays exhausted
            self.iterator = self._fresh()
            return next(self.iterator)


class _PickledSource:
    """A source pickled by the pipeline's ``py_callback_pickler`` (DALI's argument: a module or object
    with ``dumps`` and ``loads``, or a tuple ``(pickler, dumps_kwargs, loads_kwargs)``). Standard pickle
    carries only the bytes and the ``loads`` function (by reference) to a spawned worker."""

    def __init__(self, source, pickler):
        if isinstance(pickler, tuple):
            if not 1 <= len(pickler) <= 3:
                raise ValueError(f"py_callback_pickler as a tuple must be (pickler, dumps_kwargs, loads_kwargs), "
                                 f"got {len(pickler)} items")
            pickler, dumps_kw, loads_kw = (tuple(pickler) + ({}, {}))[:3]
        else:
            dumps_kw, loads_kw = {}, {}
        if not (callable(getattr(pickler, "dumps", None)) and callable(getattr(pickler, "loads", None))):
            raise TypeError(f"py_callback_pickler must have `dumps` and `loads` methods (like dill or cloudpickle), "
                            f"got {pickler!r}")
        self._payload = pickler.dumps(source, **(dumps_kw or {}))
        self._loads = pickler.loads
        self._loads_kw = dict(loads_kw or {})

    def load(self):
        return self._loads(self._payload, **self._loads_kw)


def _worker_main(source, num_outputs, batch, batch_info, tasks, results, parent_pid, current, block_prefix,
                 cycle=None):
    """A worker's loop: (task_id, infos) -> ("ok", shm name, meta) / ("stop") / ("error").
    `cycle` is set (to the source's cycle mode) for an iterable or generator function source."""
    if isinstance(source, _PickledSource):
        source = source.load()
    iteration = _Iteration(source, cycle) if cycle is not None else None
    while True:
        try:
            task = tasks.get(timeout=0.5)
        except queue.Empty:
            if os.getppid() != parent_pid:
                return  # the main process is gone
            continue
        if task is None:
            return
        task_id, infos = task
        info = None
        try:
            chunk = []
            for pos, info in enumerate(infos):
                current.value = pos  # which of the task's samples is being computed (for a death report)
                if iteration is not None:
                    data = iteration.next_batch(info)
                elif batch:
                    data = source(info if batch_info else info.iteration)
                else:
                    data = source(info)
                chunk.append(_to_arrays(data, num_outputs, batch))
            # list per output of the chunk's arrays, in sample order
            outputs = [[a for sample in chunk for a in sample[k]] for k in range(len(chunk[0]))] if chunk else []
            name, meta = _write_shm(outputs, _block_name(block_prefix, task_id))
            results.send((task_id, "ok", name, meta))
        except StopIteration:
            results.send((task_id, "stop", None, None))
        except BaseException as e:  # noqa: BLE001 (reported to the main process)
            results.send((task_id, "error", f"{type(e).__name__}: {e} while computing {info}",
                         traceback.format_exc()))


def _read_shm(name, meta, sizes=None):
    shm = shared_memory.SharedMemory(name=name)
    try:
        if sizes is not None:
            sizes.append(shm.size)
        return [[np.array(np.ndarray(shape, dtype=dt, buffer=shm.buf, offset=off)) for off, shape, dt in m]
                for m in meta]
    finally:
        shm.close()
        shm.unlink()


def _unlink(name):
    try:
        shm = shared_memory.SharedMemory(name=name)
        shm.close()
        shm.unlink()
    except FileNotFoundError:
        pass


class WorkerError(SluiceError):
    """A parallel external source's worker raised or died."""


class ParallelPool:
    """The workers of one parallel external source and the batches they have in flight."""

    def __init__(self, group, num_workers, start_method, prefetch_queue_depth, pickler=None):
        if start_method not in ("fork", "spawn"):
            raise ValueError(f"py_start_method must be 'fork' or 'spawn', got {start_method!r}")
        if int(num_workers) < 1:
            raise ValueError(f"py_num_workers must be at least 1 for a parallel external_source, got {num_workers}")
        self.group = group
        # An iterable or generator function has state: one worker iterates over it (DALI's rule).
        self.stateful = not group._is_callable
        self.num_workers = 1 if self.stateful else int(num_workers)
        self.depth = max(1, int(prefetch_queue_depth or 1))
        ctx = multiprocessing.get_context(start_method)
        # One resource tracker for the main process and every worker (a forked worker would start
        # its own otherwise, which would report the blocks the main process unlinked as leaked).
        resource_tracker.ensure_running()
        # Results come back through one pipe per worker: a send is complete when it returns (a
        # worker killed right after loses nothing), and a dead worker's pipe reads EOF.
        pipes = [ctx.Pipe(duplex=False) for _ in range(self.num_workers)]
        self._results = [r for r, _ in pipes]
        self._tasks = [ctx.Queue() for _ in range(self.num_workers)]
        self._outstanding = [collections.deque() for _ in range(self.num_workers)]  # (task_id, infos)
        self._procs = []
        self._current = [ctx.Value("q", -1, lock=False) for _ in range(self.num_workers)]
        if start_method == "fork":
            # Garbage inherited by a forked child (say, an old pipeline whose C++ destructor would
            # join threads the child does not have) must never be collected there: collect it
            # here, and freeze what is left so that the child's collections skip it.
            gc.collect()
            gc.freeze()
        # "psm_" as multiprocessing's own names; the pid and a per-process pool number keep pools apart.
        self._block_prefix = f"psm_sluice_{os.getpid()}_{next(_POOL_NUMBERS)}_"
        # The shared memory blocks of the last batch each worker delivered: (bytes, samples) per worker.
        self.last_blocks = {}
        self._pickler = pickler
        try:
            self._start(ctx, group, [w for _, w in pipes])
        finally:
            for _, w in pipes:
                w.close()  # the workers hold the write ends
            if start_method == "fork":
                gc.unfreeze()
        self._next_task = 0
        self._pending = {}    # (epoch, iteration) -> {"tasks": {task_id: (worker, infos)}, "done": {}}
        self._task_key = {}   # task_id -> (epoch, iteration)
        self._closed = False

    def _start(self, ctx, group, writers):
        source = group.source if self._pickler is None else _PickledSource(group.source, self._pickler)
        for k in range(self.num_workers):
            p = ctx.Process(target=_worker_main, daemon=True, name=f"sluice-es-{group.op_names[0]}-{k}",
                            args=(source, group.num_outputs, group.batch, group.batch_info,
                                  self._tasks[k], writers[k], os.getpid(), self._current[k], self._block_prefix,
                                  group.cycle if self.stateful else None))
            p.start()
            self._procs.append(p)

    # --- scheduling ------------------------------------------------------------------------
    def _schedule(self, epoch, iteration, batch_size):
        entry = {"tasks": {}, "done": {}}
        if self.group.batch:
            chunks = [[BatchInfo(iteration, epoch)]]
        else:
            infos = [SampleInfo(iteration * batch_size + i, i, iteration, epoch) for i in range(batch_size)]
            n = min(self.num_workers, batch_size)
            bounds = [batch_size * k // n for k in range(n + 1)]
            chunks = [infos[bounds[k]:bounds[k + 1]] for k in range(n)]
        for k, chunk in enumerate(chunks):
            task_id = self._next_task
            self._next_task += 1
            worker = (iteration + k) % self.num_workers if self.group.batch else k
            entry["tasks"][task_id] = (worker, chunk)
            self._task_key[task_id] = (epoch, iteration)
            self._outstanding[worker].append((task_id, chunk))
            self._tasks[worker].put((task_id, chunk))
        self._pending[(epoch, iteration)] = entry

    def next_batch(self, epoch, iteration, batch_size):
        """The batch for (epoch, iteration): list per output of lists of arrays; StopIteration at the end."""
        if self._closed:
            raise WorkerError(f"external_source '{self.group.op_names[0]}': its workers were shut down")
        for it in range(iteration, iteration + self.depth + 1):
            if (epoch, it) not in self._pending:
                self._schedule(epoch, it, batch_size)
        # drop batches of older epochs (their results are discarded when they arrive)
        for key in [k for k in self._pending if k[0] != epoch]:
            del self._pending[key]
        entry = self._pending[(epoch, iteration)]
        while len(entry["done"]) < len(entry["tasks"]):
            self._wait_one(entry)
        del self._pending[(epoch, iteration)]
        chunks = [entry["done"][t] for t in sorted(entry["tasks"])]
        if any(c is _StopMarker for c in chunks):
            raise StopIteration
        n_out = len(chunks[0])
        return [[a for c in chunks for a in c[k]] for k in range(n_out)]

    def _wait_one(self, entry):
        """Reads at least one result (or raises for a worker that raised or died)."""
        ready = multiprocessing.connection.wait(self._results, timeout=_POLL_S)
        if not ready:
            for worker, p in enumerate(self._procs):
                if not p.is_alive() and not self._results[worker].poll():
                    self._worker_died(worker)
            return
        for conn in ready:
            worker = self._results.index(conn)
            try:
                task_id, status, a, b = conn.recv()
            except (EOFError, OSError):
                self._procs[worker].join(0.5)
                self._worker_died(worker)
            if self._outstanding[worker] and self._outstanding[worker][0][0] == task_id:
                self._outstanding[worker].popleft()
            key = self._task_key.pop(task_id, None)
            target = self._pending.get(key) if key is not None else None
            if status == "ok":
                if target is None:
                    _unlink(a)
                else:
                    sizes = []
                    target["done"][task_id] = _read_shm(a, b, sizes)
                    self.last_blocks[worker] = (sizes[0], len(b[0]) if b else 0)
            elif status == "stop":
                if target is not None:
                    target["done"][task_id] = _StopMarker
            elif target is not None:
                _, infos = target["tasks"][task_id]
                raise WorkerError(f"external_source '{self.group.op_names[0]}': the source raised {a} "
                                  f"(in worker {worker}, task of {_describe(infos)})\n"
                                  f"Worker traceback:\n{b}")

    def _worker_died(self, worker):
        p = self._procs[worker]
        what = "no task"
        if self._outstanding[worker]:
            infos = self._outstanding[worker][0][1]
            pos = self._current[worker].value
            what = f"{infos[pos]}" if 0 <= pos < len(infos) else _describe(infos)
        self.close()
        raise WorkerError(f"external_source '{self.group.op_names[0]}': worker {worker} (pid {p.pid}) "
                          f"died with exit code {p.exitcode} while computing {what}")

    def reset(self):
        for key in list(self._pending):
            del self._pending[key]

    def close(self):
        """Stops the workers (within about half a second) and frees the blocks not yet read."""
        if self._closed:
            return
        self._closed = True
        for q in self._tasks:
            try:
                q.put_nowait(None)
            except Exception:  # noqa: BLE001
                pass
        deadline = time.monotonic() + 0.3
        for p in self._procs:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self._procs:
            if p.is_alive():
                p.kill()
        for p in self._procs:
            p.join(0.2)
        for conn in self._results:
            try:
                while conn.poll():
                    _, status, a, _ = conn.recv()
                    if status == "ok":
                        _unlink(a)
            except (EOFError, OSError):
                pass
            conn.close()
        # Blocks of tasks no result came back for: a worker killed between creating its block and
        # sending its name leaves one behind, which only its name can free.
        for outstanding in self._outstanding:
            for task_id, _ in outstanding:
                _unlink(_block_name(self._block_prefix, task_id))
            outstanding.clear()
        for q in self._tasks:
            q.cancel_join_thread()
            q.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001
            pass


def _describe(infos):
    if not infos:
        return "no sample"
    first = infos[0]
    if hasattr(first, "idx_in_epoch"):
        return f"sample {first.idx_in_epoch} ({first})" if len(infos) == 1 else \
            f"samples {first.idx_in_epoch}..{infos[-1].idx_in_epoch} (first: {first})"
    return f"batch {first}"
