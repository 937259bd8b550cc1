"""What the framework iterators share: DALI's epoch, sharding and last-batch bookkeeping.

An iterator drives one or more pipelines with the scheduled API and counts, per pipeline, the
samples returned in the epoch. The epoch's length comes from ``size`` or from the reader's
metadata (``reader_name``); with a reader the iterator follows the shard rotation, so that every
process (or pipeline) ends its epoch after the same number of batches. Semantics, for a dataset
[1..7], batch 2, one shard (``pad_last_batch`` on the reader = "padded"):

==========  ======  ==========  ==================
policy      padded  last batch  next epoch starts
==========  ======  ==========  ==================
PARTIAL     yes     [7]         [1, 2]
PARTIAL     no      [7]         [2, 3]
FILL        yes     [7, 7]      [1, 2]
FILL        no      [7, 1]      [2, 3]
DROP        either  [5, 6]      [1, 2] / [2, 3]
==========  ======  ==========  ==================

Subclasses implement ``_convert(outputs_of_one_pipeline)`` and ``_trim(converted, n)``.
"""
import enum
import json
import logging
import math
import warnings

from ..types import PipelineAPIType

logger = logging.getLogger("sluice")


class LastBatchPolicy(enum.Enum):
    """What to do with the last batch of an epoch when it is not full."""

    FILL = 0     # fill it with the samples that follow (wrapping into the next epoch) or padding
    DROP = 1     # drop it
    PARTIAL = 2  # return only the samples of this epoch (a smaller batch)


class _Shards:
    """Reader-driven epoch sizes: every shard of the dataset, which shard each position reads
    now, and how far each position has already read into it (FILL without padding reads ahead)."""

    def __init__(self, metas, batch_size, policy):
        first = metas[0]
        for key, what in (("epoch_size", "size"), ("number_of_shards", "num_shards")):
            if any(m[key] != first[key] for m in metas):
                raise ValueError(f"the reader has a different {what} in different pipelines")
        for key in ("pad_last_batch", "stick_to_shard"):
            if any(m[key] != first[key] for m in metas):
                raise ValueError(f"the reader's {key} must be set in all pipelines or in none")
        self.total = first["epoch_size"]
        self.num_shards = first["number_of_shards"]
        self.padded = first["pad_last_batch"]
        self.stick = first["stick_to_shard"]
        self.batch = batch_size
        self.policy = policy
        n, s = self.total, self.num_shards
        self.sizes = [(k + 1) * n // s - k * n // s for k in range(s)]
        self.positions = [m["shard_id"] for m in metas]  # position of each of our pipelines
        self.shard_of = list(range(s))                    # the shard each position reads now
        self.ahead = [0] * s                              # samples of it read in earlier epochs
        # Batches a padded reader returns per epoch (every shard padded to ceil(n / s), then to a batch).
        self.padded_epoch_batches = math.ceil(math.ceil(n / s) / batch_size)
        if policy == LastBatchPolicy.DROP:
            self.size = n // s
        elif self.padded:
            self.size = first["epoch_size_padded"] // s
        else:
            self.size = self._round_up(math.ceil(n / s))

    def _round_up(self, samples):
        return math.ceil(samples / self.batch) * self.batch

    def current_shard_size(self, pipe_index):
        return self.sizes[self.shard_of[self.positions[pipe_index]]]

    def drop_ends_epoch(self, counter):
        """DROP: would any position run past its shard with `counter` samples read?"""
        return any(a + counter > self.sizes[self.shard_of[k]] for k, a in enumerate(self.ahead))

    def next_epoch(self, counter, fill_without_padding):
        """Advances to the next epoch; returns the counter the new epoch starts at."""
        start = 0
        if fill_without_padding:
            consumed = counter - min(self.ahead)
            self.ahead = [a + consumed - self.sizes[self.shard_of[k]] for k, a in enumerate(self.ahead)]
            start = min(self.ahead)
        if not self.stick:
            self.shard_of = [(sh + 1) % self.num_shards for sh in self.shard_of]
        if fill_without_padding:
            remaining = max(self.sizes[self.shard_of[k]] - a for k, a in enumerate(self.ahead))
            self.size = self._round_up(remaining)
            if self.size == 0:
                self.ahead = [0] * self.num_shards
                start = 0
                self.size = self._round_up(max(self.sizes))
        return start


class BaseIterator:
    """DALI's iterator protocol over Sluice pipelines (see the module docstring)."""

    def __init__(self, pipelines, size=-1, reader_name=None, auto_reset=False, fill_last_batch=None,
                 last_batch_padded=False, last_batch_policy=LastBatchPolicy.FILL, prepare_first_batch=True):
        if pipelines is None:
            raise ValueError("at least one pipeline is needed")
        self._pipes = list(pipelines) if isinstance(pipelines, (list, tuple)) else [pipelines]
        if not self._pipes:
            raise ValueError("at least one pipeline is needed")
        self.batch_size = self._pipes[0].max_batch_size
        if any(p.max_batch_size != self.batch_size for p in self._pipes):
            raise ValueError("all pipelines must have the same batch_size")
        self._auto_reset = _parse_auto_reset(auto_reset)
        self._policy = _parse_policy(fill_last_batch, last_batch_policy)
        self._size = int(size)
        self._reader_name = reader_name
        self._last_batch_padded = bool(last_batch_padded)
        self._validate_size_arguments()

        for p in self._pipes:
            p._use_api(PipelineAPIType.ITERATOR)
            p.build()
        if self._size < 0 and not reader_name:
            if not all(p._sources for p in self._pipes):
                raise ValueError("give the iterator `size` or `reader_name`: without either it would only end "
                                 "when an external_source raises StopIteration, and this pipeline has none")
            self._policy = LastBatchPolicy.FILL  # runs until StopIteration: nothing to fill or drop
            self._last_batch_padded = False
        self._shards = None
        if reader_name:
            self._shards = _Shards([p.reader_meta(reader_name) for p in self._pipes], self.batch_size, self._policy)
            self._size = self._shards.size
            self._last_batch_padded = self._shards.padded
        self._counter = 0
        self._taken = 0  # batches taken from each pipeline this epoch, returned or dropped
        self._scheduled_ever = False
        self._first_batch = None
        data = self._pipes[0]._checkpoint_iterator_data()
        if data:
            self._restore_state(json.loads(data))
        self._state_before_first = None  # while the prepared first batch is not yet returned
        if prepare_first_batch:
            self._state_before_first = self._state()
            try:
                self._first_batch = self._next_batch()
            except StopIteration:
                raise RuntimeError("the pipeline produced no data: the dataset is empty, or the last_batch_policy "
                                   "is PARTIAL and the batch size exceeds the shard size") from None

    # --- bad data ------------------------------------------------------------------------------
    def error_log(self):
        """The rows replaced after errors (``on_error="replace"``) in the batches this iterator took
        from its pipelines: each pipeline's ``error_log()`` in pipeline order (records name their
        operator, source, iteration and row; see ``Pipeline.error_log``). A Sluice extension."""
        return [rec for p in self._pipes for rec in p.error_log()]

    # --- checkpointing -------------------------------------------------------------------------
    def checkpoints(self):
        """One checkpoint per pipeline, as DALI's iterators: pipelines built with ``checkpoint=`` these
        (in the same order), under a new iterator with the same arguments, continue with the batches
        this iterator would have returned next. The pipelines need ``enable_checkpointing=True``."""
        pending = self._first_batch is not None
        data = json.dumps(self._state_before_first if pending else self._state())
        return [p._get_checkpoint(data, rewind=1 if pending else 0) for p in self._pipes]

    def _state(self):
        state = {"counter": self._counter, "taken": self._taken, "size": self._size}
        if self._shards:
            state["shards"] = {"shard_of": list(self._shards.shard_of), "ahead": list(self._shards.ahead),
                               "size": self._shards.size}
        return state

    def _restore_state(self, state):
        try:
            self._counter, self._taken, self._size = int(state["counter"]), int(state["taken"]), int(state["size"])
            if self._shards:
                shards = state["shards"]
                self._shards.shard_of = [int(x) for x in shards["shard_of"]]
                self._shards.ahead = [int(x) for x in shards["ahead"]]
                self._shards.size = int(shards["size"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the pipeline's checkpoint does not hold this iterator's state ({e!r}); was it "
                             f"taken with the same iterator arguments?") from None

    def _validate_size_arguments(self):
        if self._reader_name and self._size >= 0:
            raise ValueError("`size` and `reader_name` are mutually exclusive: give one (reader_name is preferred)")
        if self._reader_name and self._last_batch_padded:
            raise ValueError("with `reader_name`, last_batch_padded comes from the reader's pad_last_batch: "
                             "do not set it")
        if self._size == 0:
            raise ValueError("size cannot be 0")
        if self._size < 0 and not self._reader_name and len(self._pipes) > 1:
            raise ValueError("with several pipelines, give `reader_name` (or a positive `size`)")
        if self._size > 0:
            warnings.warn("prefer `reader_name` to `size` and `last_batch_padded`: with sharding, a manual size can "
                          "miss or repeat samples", stacklevel=4)

    # --- the protocol ----------------------------------------------------------------------
    @property
    def size(self):
        return self._size

    @property
    def _step(self):
        """Samples one step adds to the counter: per pipeline with a reader, all pipelines' without."""
        return self.batch_size if self._shards else len(self._pipes) * self.batch_size

    def __len__(self):
        if self._policy == LastBatchPolicy.DROP:
            return self._size // self._step
        return math.ceil(self._size / self._step)

    def __iter__(self):
        return self

    def next(self):
        return self.__next__()

    def __next__(self):
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        return self._next_batch()

    def _next_batch(self):
        outputs = self._take_outputs()
        converted = [self._convert(outs) for outs in outputs]
        self._schedule(release=True)
        self._taken += 1
        self._counter += self._step
        if self._policy == LastBatchPolicy.DROP and self._drop_ends_epoch(self._counter):
            self._end_epoch()
        if self._policy == LastBatchPolicy.PARTIAL:
            return self._trim_partial(converted)
        return converted

    def _drop_ends_epoch(self, counter):
        return self._shards.drop_ends_epoch(counter) if self._shards else counter > self._size

    def _trim_partial(self, converted):
        if self._shards:
            out = []
            for i, batch in enumerate(converted):
                keep = self.batch_size - (self._counter - self._shards.current_shard_size(i))
                out.append(self._trim(batch, max(0, keep)) if keep < self.batch_size else batch)
            return out
        if self._size < 0 or self._counter <= self._size:
            return converted
        # Without a reader: return exactly `size` samples, from as many pipelines as that takes.
        wanted = self._size - (self._counter - len(self._pipes) * self.batch_size)
        n_pipes = math.ceil(wanted / self.batch_size)
        last = wanted - (n_pipes - 1) * self.batch_size
        out = converted[:n_pipes]
        out[-1] = self._trim(out[-1], last)
        return out

    def _take_outputs(self):
        if not self._scheduled_ever:
            self._schedule(release=False)
        if self._size > 0 and self._counter >= self._size:
            self._end_epoch()
        try:
            return [p._share_outputs() for p in self._pipes]
        except StopIteration:
            if self._size < 0 and self._auto_reset:
                self.reset()
            raise

    def _schedule(self, release):
        self._scheduled_ever = True
        for p in self._pipes:
            if release:
                p._release_outputs()
            p._schedule_run()

    def _end_epoch(self):
        if self._auto_reset:
            self.reset()
        raise StopIteration

    def reset(self):
        """Starts the next epoch. Only at the end of an epoch: a reset mid-epoch is ignored (warning)."""
        if self._policy == LastBatchPolicy.DROP:
            # The caller may stop after len() batches: the incomplete batch is still in the pipeline.
            ended = self._size > 0 and self._counter >= self._size
            if not ended and self._drop_ends_epoch(self._counter + self._step):
                self._discard_batch()
                self._counter += self._step
        if not (self._counter >= self._size or self._size < 0):
            logger.warning("the iterator cannot be reset in the middle of an epoch: ignoring reset()")
            warnings.warn("the iterator cannot be reset in the middle of an epoch: ignoring reset()", stacklevel=2)
            return
        if self._policy == LastBatchPolicy.DROP and self._shards and self._shards.padded:
            # A padded reader's epoch has a fixed number of batches: drop the rest of it, so that the
            # next epoch starts at its shard's beginning. (DALI's own iterator can leave one batch of
            # padding for the next epoch when N % num_shards != 0 and N // num_shards % batch == 0.)
            while self._taken < self._shards.padded_epoch_batches:
                self._discard_batch()
        self._taken = 0
        fill_unpadded = self._policy == LastBatchPolicy.FILL and not self._last_batch_padded
        if self._shards:
            self._counter = self._shards.next_epoch(self._counter, fill_unpadded)
            self._size = self._shards.size
        elif fill_unpadded and self._size > 0:
            self._counter = self._counter % self._size
        else:
            self._counter = 0
        for p in self._pipes:
            p.reset()
            if p.empty():
                p._schedule_run()

    def _discard_batch(self):
        for p in self._pipes:
            p._share_outputs()
        self._schedule(release=True)
        self._taken += 1

    # --- subclass hooks ----------------------------------------------------------------------
    def _convert(self, outputs):
        """The framework's form of one pipeline's outputs (a tuple of TensorListCPU)."""
        raise NotImplementedError

    def _trim(self, converted, n):
        """The first `n` samples of a converted batch."""
        raise NotImplementedError


def _parse_auto_reset(value):
    if value in (False, None, "no"):
        return False
    if value in (True, "yes"):
        return True
    raise ValueError(f"auto_reset must be True, False, 'yes' or 'no', got {value!r}")


def _parse_policy(fill_last_batch, policy):
    if fill_last_batch is not None:
        warnings.warn("fill_last_batch is deprecated: use last_batch_policy", DeprecationWarning, stacklevel=4)
        return LastBatchPolicy.FILL if fill_last_batch else LastBatchPolicy.PARTIAL
    if isinstance(policy, LastBatchPolicy):
        return policy
    if isinstance(policy, int) and not isinstance(policy, bool):
        return LastBatchPolicy(policy)
    raise ValueError(f"last_batch_policy must be a LastBatchPolicy, got {policy!r}")
