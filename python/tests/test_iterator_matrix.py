"""Every last_batch_policy x padding x stick_to_shard combination, on dataset sizes that do and do
not divide by the batch size and the shard count, checked against the reader's sample stream.

The reader's stream is modelled from DALI's documented reader semantics (shard i of N over S is
[floor(i*N/S), floor((i+1)*N/S)); each epoch the next shard unless stick_to_shard; pad_last_batch
repeats the shard's last sample up to ceil(N/S) samples and a full batch). Each returned batch must
be a reader batch (PARTIAL: a prefix of one); FILL and PARTIAL never skip one, DROP skips only at
epoch ends; each epoch has len(it) batches; padded readers give exact per-epoch contents.
"""
import itertools
import math

import pytest

# sluice.plugin.pytorch imports torch: skipped, not an import error, where torch is missing.
torch = pytest.importorskip("torch")

from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy

from conftest import label_pipeline, make_files, requires_file_reader

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL
EPOCHS = 4


def shard_samples(n, num_shards, shard):
    return list(range(shard * n // num_shards + 1, (shard + 1) * n // num_shards + 1))  # labels are 1-based


def reader_epoch(n, num_shards, shard, padded, batch):
    samples = shard_samples(n, num_shards, shard)
    if padded:
        samples += [samples[-1]] * (math.ceil(n / num_shards) - len(samples))
        samples += [samples[-1]] * (-len(samples) % batch)
    return samples


def reader_batches(n, num_shards, shard_id, padded, stick, batch, epochs):
    """The batches the reader of `shard_id` yields over `epochs` passes (and a little beyond)."""
    stream = []
    for e in range(4 * epochs + 4):
        shard = shard_id if stick else (shard_id + e) % num_shards
        stream += reader_epoch(n, num_shards, shard, padded, batch)
    return [stream[k:k + batch] for k in range(0, len(stream) - batch + 1, batch)]


def run_epochs(it, epochs):
    """[(len(it) at the start, [[labels of pipeline p] per step])] per epoch."""
    out = []
    for _ in range(epochs):
        length = len(it)
        steps = [[d["label"].ravel().tolist() for d in step] for step in it]
        out.append((length, steps))
        it.reset()
    return out


def check_alignment(per_pipe_epochs, batches, policy, batch):
    """Each returned batch is the next reader batch (a prefix of it for PARTIAL); DROP may skip
    one at an epoch's start."""
    m = -1
    for e, epoch in enumerate(per_pipe_epochs):
        for i, got in enumerate(epoch):
            m += 1
            if policy == DROP and i == 0 and e > 0 and got != batches[m]:
                m += 1  # the incomplete batch dropped at the end of the previous epoch
            if policy == PARTIAL:
                assert got == batches[m][:len(got)], (e, i, got, batches[m])
            else:
                assert got == batches[m], (e, i, got, batches[m])
                assert len(got) == batch


CASES = list(itertools.product([FILL, DROP, PARTIAL], [False, True], [False, True], [6, 7, 8], [1, 2, 3], [2, 3]))


@requires_file_reader
@pytest.mark.parametrize("policy,padded,stick,n,num_shards,batch", CASES,
                         ids=lambda v: v.name if isinstance(v, LastBatchPolicy) else str(v))
def test_reader_name_matrix(tmp_path, policy, padded, stick, n, num_shards, batch):
    files = make_files(tmp_path, n)
    pipes = [label_pipeline(files, batch, num_shards=num_shards, shard_id=s, pad_last_batch=padded,
                            stick_to_shard=stick) for s in range(num_shards)]
    if policy == DROP and (n // num_shards) // batch == 0:
        with pytest.raises(RuntimeError, match="no data"):  # every batch would be incomplete
            DALIGenericIterator(pipes, ["label"], reader_name="Reader", last_batch_policy=policy)
        return
    it = DALIGenericIterator(pipes, ["label"], reader_name="Reader", last_batch_policy=policy)
    epochs = run_epochs(it, EPOCHS)
    for length, steps in epochs:
        assert len(steps) == length
        assert all(len(step) == num_shards for step in steps)
    if policy == DROP:
        assert all(length == (n // num_shards) // batch for length, _ in epochs)
    for s in range(num_shards):
        per_epoch = [[step[s] for step in steps] for _, steps in epochs]
        check_alignment(per_epoch, reader_batches(n, num_shards, s, padded, stick, batch, EPOCHS), policy, batch)
        if not padded:
            continue
        for e, got in enumerate(per_epoch):
            shard = s if stick else (s + e) % num_shards
            flat = [x for b in got for x in b]
            if policy == FILL:
                assert flat == reader_epoch(n, num_shards, shard, True, batch)
            elif policy == PARTIAL:
                assert flat == shard_samples(n, num_shards, shard)
            else:
                k = (n // num_shards) // batch
                assert flat == shard_samples(n, num_shards, shard)[:k * batch]
    if policy == FILL and not padded:
        # Every sample of the shard a pipeline reads is returned in the epoch or the one before it.
        for s in range(num_shards):
            seen = set()
            for e, (_, steps) in enumerate(epochs):
                now = {x for step in steps for x in step[s]}
                shard = s if stick else (s + e) % num_shards
                assert set(shard_samples(n, num_shards, shard)) <= now | seen
                seen = now


SIZE_CASES = list(itertools.product([FILL, DROP, PARTIAL], [False, True], [False, True], [6, 7, 8], [2, 3]))


@requires_file_reader
@pytest.mark.parametrize("policy,last_batch_padded,pad_last_batch,n,batch", SIZE_CASES,
                         ids=lambda v: v.name if isinstance(v, LastBatchPolicy) else str(v))
@pytest.mark.filterwarnings("ignore:prefer `reader_name`")
def test_size_matrix(tmp_path, policy, last_batch_padded, pad_last_batch, n, batch):
    files = make_files(tmp_path, n)
    pipe = label_pipeline(files, batch, pad_last_batch=pad_last_batch)
    it = DALIGenericIterator(pipe, ["label"], size=n, last_batch_padded=last_batch_padded, last_batch_policy=policy)
    assert len(it) == (n // batch if policy == DROP else math.ceil(n / batch))
    epochs = run_epochs(it, EPOCHS)
    per_epoch = [[step[0] for step in steps] for _, steps in epochs]
    check_alignment(per_epoch, reader_batches(n, 1, 0, pad_last_batch, False, batch, EPOCHS), policy, batch)
    for length, steps in epochs:
        if policy == PARTIAL:
            assert sum(len(step[0]) for step in steps) == n
        if policy == DROP or last_batch_padded or policy == PARTIAL:
            assert len(steps) == length
        else:  # FILL without last_batch_padded: samples read ahead count towards the next epoch
            assert len(steps) in (length - 1, length)
