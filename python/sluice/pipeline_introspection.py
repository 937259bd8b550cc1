"""What a built pipeline reports about itself: executor, queue and shared-memory statistics, the
error log, checkpoints, and the readers' metadata and epoch sizes.

:class:`PipelineIntrospection` is the part of :class:`sluice.pipeline.Pipeline` with these methods;
each builds the pipeline if needed (through ``_built()``) and returns plain Python data (dicts,
lists, str) made from the C++ pipeline's reports, with DALI's keys where DALI has the method. Not
used on its own.
"""


class PipelineIntrospection:
    """The statistics, error log, checkpoints and reader metadata of a :class:`sluice.pipeline.Pipeline`."""

    # --- introspection -----------------------------------------------------------------------
    def external_source_shm_statistics(self):
        """The shared memory the parallel external sources' workers used, as DALI's ``{"capacities":
        [...], "per_sample_capacities": [...]}``. Sluice's workers write each task's result into a
        block of its own size (DALI reuses slots grown as needed): the lists hold, per worker of each
        parallel source, the size in bytes of the block of the last batch it delivered, and that
        size divided by the samples in it. Empty without parallel sources or before any batch."""
        capacities, per_sample = [], []
        for pool in self._pools or ():
            for worker in sorted(pool.last_blocks):
                size, samples = pool.last_blocks[worker]
                capacities.append(size)
                per_sample.append(size // max(samples, 1))
        return {"capacities": capacities, "per_sample_capacities": per_sample}

    def executor_statistics(self):
        """``{op_name: {"real_memory_size": [...], "max_real_memory_size": [...],
        "reserved_memory_size": [...], "max_reserved_memory_size": [...], ...}}`` as in DALI (memory
        lists, one entry per output, are filled with enable_memory_stats), plus timing keys:
        "batches", "total_time_ms", "mean_batch_ms", "last_batch_ms", and "counters": the operator's own
        counts (a Sluice extension; e.g. experimental.inputs.video's "decoder_starts"), {} for most. With ``num_threads="auto"``,
        ``prefetch_queue_depth="auto"`` or ``memory_budget``, one more entry, ``"autotune"`` (a Sluice
        extension; it has no "op" key): the threads and depth in use, their bounds, the budget, the
        last window's measurements, the list of changes (batch, threads, depth, reason) and, with
        ``num_threads="auto"``, the thread search ("search": the default it started from, its
        phase, the best count and its batches/s, and every step measured: threads, batches/s,
        the consumer's wait fraction, kept)."""
        stats = self._built().executor_statistics()
        out = {}
        for s in stats.operators:
            out[s.name] = {
                "real_memory_size": list(s.real_memory_size),
                "max_real_memory_size": list(s.max_real_memory_size),
                "reserved_memory_size": list(s.reserved_memory_size),
                "max_reserved_memory_size": list(s.max_reserved_memory_size),
                "batches": s.batches,
                "total_time_ms": s.total_time_ms,
                "mean_batch_ms": s.mean_batch_ms,
                "last_batch_ms": s.last_batch_ms,
                "op": s.op,
                "device": s.device,
                "replaced_samples": s.replaced_samples,
                "counters": dict(s.counters),
            }
        if stats.autotune.enabled:
            out["autotune"] = _autotune_dict(stats.autotune)
        return out

    def error_log(self):
        """The rows replaced after errors (``on_error="replace"`` on a decoder or a reader), oldest
        first, as ``SampleError`` records: ``op`` (the operator that failed), ``source`` (``path``,
        ``member`` of a tar and byte ``offset``, also as one string), ``iteration``, ``sample`` (the
        row), ``replaced_by`` (the row whose values took its place in every output) and ``message``.
        A batch's records appear when the batch is taken (the last 10,000 are kept). A Sluice
        extension: DALI has no error log."""
        return list(self._built().error_log())

    def checkpoint(self, filename=None):
        """Where the pipeline stands after the last batch taken, as text for ``Pipeline(checkpoint=...)``;
        also written to ``filename`` if given. Needs ``enable_checkpointing=True``."""
        text = self._get_checkpoint()
        if filename is not None:
            with open(filename, "w", encoding="utf-8") as f:
                f.write(text)
        return text

    def _get_checkpoint(self, iterator_data="", rewind=0):
        return self._built().checkpoint(iterator_data, rewind)

    def _checkpoint_iterator_data(self):
        """The iterator data of the checkpoint this pipeline was built from ("" without one)."""
        return self._built().checkpoint_external_data()

    def queue_statistics(self):
        """Prefetch queue occupancy, consumer wait time and mean time per batch of each stage (a Sluice
        extension)."""
        s = self._built().executor_statistics()
        return {"mean_queue_occupancy": s.mean_queue_occupancy, "max_queue_occupancy": s.max_queue_occupancy,
                "queue_capacity": s.queue_capacity,
                "cpu_queue_capacity": s.cpu_queue_capacity, "batches_produced": s.batches_produced,
                "consumer_wait_ms": s.consumer_wait_ms, "cpu_stage_ms": s.cpu_stage_ms,
                "device_stage_ms": s.device_stage_ms}

    def reader_meta(self, name=None):
        """The named reader's metadata as a dict, or ``{name: dict}`` for every reader."""
        cpp = self._built()
        if name is not None:
            return _meta_dict(cpp.reader_meta(name))
        return {n: _meta_dict(m) for n, m in cpp.all_reader_meta().items()}

    def epoch_size(self, name=None):
        """The named reader's padded epoch size, or ``{name: size}`` for every reader."""
        cpp = self._built()
        if name is not None:
            return cpp.epoch_size(name)
        return {n: m.epoch_size_padded for n, m in cpp.all_reader_meta().items()}


def _meta_dict(m):
    return {"epoch_size": m.epoch_size, "epoch_size_padded": m.epoch_size_padded,
            "number_of_shards": m.number_of_shards, "shard_id": m.shard_id,
            "pad_last_batch": m.pad_last_batch, "stick_to_shard": m.stick_to_shard}


def _autotune_dict(a):
    return {"auto_threads": a.auto_threads, "auto_queue_depth": a.auto_queue_depth,
            "memory_budget": a.memory_budget or None, "threads": a.threads, "max_threads": a.max_threads,
            "depth": a.depth, "max_depth": a.max_depth,
            "measured": {"batches": a.window_batches, "stage_ms": a.stage_ms, "stage_stddev_ms": a.stage_stddev_ms,
                         "period_ms": a.period_ms, "wait_ms": a.wait_ms, "slot_bytes": a.slot_bytes,
                         "output_bytes": a.output_bytes, "needed_bytes": a.needed_bytes},
            "changes": [{"batch": c.batch, "threads": c.threads, "depth": c.depth, "reason": c.reason}
                        for c in a.changes],
            "search": None if not a.auto_threads else {
                "default_threads": a.default_threads, "phase": a.search_phase, "searches": a.searches,
                "best_threads": a.best_threads, "best_batches_per_s": a.best_batches_per_s,
                "trials": [{"threads": t.threads, "batches_per_s": t.batches_per_s,
                            "wait_fraction": t.wait_fraction, "kept": t.kept} for t in a.trials]}}
