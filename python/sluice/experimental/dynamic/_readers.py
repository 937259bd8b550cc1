"""Readers as objects (DALI's ``ndd.readers.File(...)``): one class per registered reader.

A reader is made with the reader operator's arguments (validated at once, raising the pipeline's
ArgumentError) and read with ``next_epoch()``: with ``batch_size`` it yields tuples of Batches
(one per output), without it tuples of Tensors (one sample at a time). As in DALI, a reader keeps
the mode and batch size of its first ``next_epoch``; an epoch is ``ceil(shard size / batch_size)``
full batches (the last one continues into the next epoch's samples, as DALI's readers do unless
``pad_last_batch``). The reader runs in its own pipeline, prefetching ``prefetch_queue_depth``
batches on a background thread. Breaking out of an epoch and calling ``next_epoch()`` again starts
at the next epoch: the rest of the current one is skipped (after ``set_state`` of a state saved
mid-epoch, the next ``next_epoch()`` yields that epoch's rest instead).

``get_state()`` / ``set_state()`` (with ``enable_checkpointing=True``) save and restore where the
reader stands, through the pipeline's checkpoints (readers' positions and shuffling).

Without ``seed``, a shuffling reader's seed is drawn from ``ndd.random``'s default generator when
the reader first runs (so ``set_seed`` makes the order reproducible).
"""
import json
import math

from ...errors import SluiceError
from ...graph import call_operator, make_call
from ...pipeline import Pipeline
from ._batch import Batch
from ._engine import get_num_threads
from ._tensor import Tensor


class Reader:
    """The base of the generated reader classes; ``_op_name`` is the reader's registry name."""

    _op_name = None

    def __init__(self, *, prefetch_queue_depth=2, num_threads=None, enable_checkpointing=False, **kwargs):
        kwargs.pop("device", None)
        self._checkpointing = bool(enable_checkpointing)
        self._kwargs = {k: v for k, v in kwargs.items() if v is not None}
        make_call(self._op_name, [], self._kwargs)  # the pipeline's validation, where the reader is made
        self._prefetch = int(prefetch_queue_depth)
        self._num_threads = num_threads
        self._pipe = None
        self._batch_size = None     # None: samples; set by the first next_epoch
        self._left = 0              # batches of the current epoch not yet taken
        self._resume = False        # the next next_epoch() finishes a restored epoch (set_state)
        self._name = "Reader"

    def _start(self, batch_size, checkpoint=None):
        from . import random as _random
        seed = self._kwargs.get("seed")
        pipe_seed = _random.get_default_rng()._draw_seed() if seed in (None, -1) else None
        pipe = Pipeline(batch_size=batch_size, num_threads=self._num_threads or get_num_threads(), device_id=None,
                        seed=pipe_seed, prefetch_queue_depth=self._prefetch,
                        enable_checkpointing=self._checkpointing, checkpoint=checkpoint)
        with pipe:
            outs = call_operator(self._op_name, [], self._kwargs, name=self._name)
            pipe.set_outputs(*outs)
        pipe.build()
        self._pipe = pipe

    def _shard_size(self):
        meta = self._pipe.reader_meta(self._name)
        n, shards, shard = meta["epoch_size"], meta["number_of_shards"], meta["shard_id"]
        if meta["pad_last_batch"]:
            return meta["epoch_size_padded"] // shards
        return n * (shard + 1) // shards - n * shard // shards

    def next_epoch(self, batch_size=None):
        """An iterator over the next epoch: tuples of Batches of `batch_size` samples, or, without a
        batch size, tuples of Tensors."""
        want = None if batch_size is None else int(batch_size)
        if want is not None and want < 1:
            raise ValueError(f"{self._op_name}: batch_size must be a positive int, got {batch_size!r}")
        if self._pipe is None:
            self._batch_size = want
            self._start(want or 1)
        elif want != self._batch_size:
            raise SluiceError(f"{self._op_name}: the reader was read with batch_size={self._batch_size}; a reader "
                              f"keeps the batch size (or sample mode) of its first next_epoch(), got {want}")
        return self._epoch()

    def _epoch(self):
        pipe = self._pipe
        if self._resume:  # set_state() mid-epoch: this epoch is the rest of the saved one
            self._resume = False
        else:
            while self._left > 0:  # the rest of an epoch the caller left
                pipe._cpp.run()
                self._left -= 1
            self._left = math.ceil(self._shard_size() / (self._batch_size or 1))
        while self._left > 0:
            out = pipe._cpp.run()
            self._left -= 1
            if self._batch_size is None:
                import numpy as np
                yield tuple(Tensor._wrap(np.asarray(b.sample(0)), b.layout) for b in out)
            else:
                yield tuple(Batch._from_cpp(b) for b in out)

    def get_state(self):
        """Where the reader stands (after the last batch or sample taken) as a string, for
        ``set_state`` on this reader or on one made with the same arguments. Needs
        ``enable_checkpointing=True`` at construction, as in DALI."""
        self._check_checkpointing()
        if self._pipe is None:
            return json.dumps({"checkpoint": None})
        return json.dumps({"checkpoint": self._pipe.checkpoint(), "batch_size": self._batch_size, "left": self._left})

    def set_state(self, state):
        """Continues from a ``get_state()``: the next batches are those the saved reader would have
        returned next (its position in the epoch and its shuffling). Saved mid-epoch, the next
        ``next_epoch()`` yields the rest of that epoch."""
        self._check_checkpointing()
        try:
            doc = json.loads(str(state))
            text = doc["checkpoint"]
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{self._op_name}: set_state() takes a string from get_state(), "
                             f"got {state!r:.80}") from None
        if text is None:
            self._pipe, self._batch_size, self._left = None, None, 0
            return
        self._batch_size = doc["batch_size"]
        self._start(self._batch_size or 1, checkpoint=text)
        self._left = int(doc["left"])
        self._resume = self._left > 0

    def _check_checkpointing(self):
        if not self._checkpointing:
            raise SluiceError(f"{self._op_name}: the reader was made without checkpointing; pass "
                              "`enable_checkpointing=True` to the reader's constructor")

    def get_metadata(self):
        """The reader's metadata (epoch size, shards, padding) as a dict; the reader must have run."""
        if self._pipe is None:
            raise SluiceError(f"{self._op_name}: get_metadata() needs a reader that has started (next_epoch())")
        return self._pipe.reader_meta(self._name)


def make_reader_class(schema, class_name, module_name):
    cls = type(class_name, (Reader,), {"_op_name": schema.name, "__doc__": schema.doc, "__module__": module_name})
    cls.__qualname__ = class_name
    return cls
