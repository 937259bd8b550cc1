"""The PyTorch iterator against DALI's documented last-batch table, and its argument checks."""

import pytest
import torch

import sluice
from sluice import fn
from sluice.plugin.pytorch import (DALIClassificationIterator, DALIGenericIterator, GenericIterator,
                                   LastBatchPolicy, shard_info)

from conftest import label_pipeline, make_files, requires_file_reader, requires_testing_ops

FILL, DROP, PARTIAL = LastBatchPolicy.FILL, LastBatchPolicy.DROP, LastBatchPolicy.PARTIAL


def epochs(it, n):
    out = []
    for _ in range(n):
        out.append([b[0]["label"].ravel().tolist() for b in it])
        it.reset()
    return out


def test_policy_values():
    assert (FILL.value, DROP.value, PARTIAL.value) == (0, 1, 2)
    assert GenericIterator is DALIGenericIterator


# dataset [1..7], batch 2, one shard (dali-semantics.md)
TABLE = [
    (PARTIAL, True, [[1, 2], [3, 4], [5, 6], [7]], [1, 2]),
    (PARTIAL, False, [[1, 2], [3, 4], [5, 6], [7]], [2, 3]),
    (FILL, True, [[1, 2], [3, 4], [5, 6], [7, 7]], [1, 2]),
    (FILL, False, [[1, 2], [3, 4], [5, 6], [7, 1]], [2, 3]),
    (DROP, True, [[1, 2], [3, 4], [5, 6]], [1, 2]),
    (DROP, False, [[1, 2], [3, 4], [5, 6]], [2, 3]),
]


@requires_file_reader
@pytest.mark.parametrize("policy,padded,first_epoch,next_start", TABLE)
def test_dali_last_batch_table(tmp_path, policy, padded, first_epoch, next_start):
    pipe = label_pipeline(make_files(tmp_path, 7), 2, pad_last_batch=padded)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", last_batch_policy=policy)
    assert len(it) == (3 if policy == DROP else 4)
    got = epochs(it, 2)
    assert got[0] == first_epoch
    assert got[1][0] == next_start


@requires_file_reader
def test_outputs_are_torch_tensors_and_classification_iterator(tmp_path):
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        data, label = fn.readers.file(files=make_files(tmp_path, 6), name="Reader")
        pipe.set_outputs(fn.copy(label) * 2, label)
    it = DALIClassificationIterator(pipe, reader_name="Reader")
    batch = next(it)
    assert isinstance(batch, list) and len(batch) == 1
    assert set(batch[0]) == {"data", "label"}
    assert isinstance(batch[0]["label"], torch.Tensor) and batch[0]["label"].dtype == torch.int32
    assert batch[0]["label"].ravel().tolist() == [0, 1, 2]
    assert batch[0]["data"].ravel().tolist() == [0, 2, 4]


@requires_file_reader
def test_auto_reset_and_len(tmp_path):
    pipe = label_pipeline(make_files(tmp_path, 5), 2)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", auto_reset=True,
                             last_batch_policy=PARTIAL)
    assert len(it) == 3
    first = [b[0]["label"].ravel().tolist() for b in it]
    second = [b[0]["label"].ravel().tolist() for b in it]  # no reset() needed
    assert first == [[1, 2], [3, 4], [5]]
    assert len(second) == 3


@requires_file_reader
def test_reset_mid_epoch_is_ignored_with_a_warning(tmp_path):
    pipe = label_pipeline(make_files(tmp_path, 6), 2)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader")
    next(it)
    with pytest.warns(UserWarning, match="middle of an epoch"):
        it.reset()
    assert [b[0]["label"].ravel().tolist() for b in it] == [[3, 4], [5, 6]]


@requires_file_reader
def test_prepare_first_batch_false_runs_lazily(tmp_path):
    pipe = label_pipeline(make_files(tmp_path, 4), 2)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", prepare_first_batch=False)
    assert pipe.empty()  # nothing scheduled yet
    assert [b[0]["label"].ravel().tolist() for b in it] == [[1, 2], [3, 4]]


@requires_file_reader
def test_size_argument_errors(tmp_path):
    files = make_files(tmp_path, 4)
    with pytest.raises(ValueError, match="mutually exclusive"):
        DALIGenericIterator(label_pipeline(files, 2), ["label"], size=4, reader_name="Reader")
    with pytest.raises(ValueError, match="size or `reader_name`|`size` or `reader_name`"):
        DALIGenericIterator(label_pipeline(files, 2), ["label"])
    with pytest.raises(ValueError, match="cannot be 0"):
        DALIGenericIterator(label_pipeline(files, 2), ["label"], size=0)
    with pytest.raises(ValueError, match="several pipelines"):
        DALIGenericIterator([label_pipeline(files, 2), label_pipeline(files, 2)], ["label"], size=-1)
    with pytest.raises(ValueError, match="pad_last_batch"):
        DALIGenericIterator(label_pipeline(files, 2), ["label"], reader_name="Reader", last_batch_padded=True)
    with pytest.raises(ValueError, match="distinct"):
        DALIGenericIterator(label_pipeline(files, 2), ["a", "a"], reader_name="Reader")
    with pytest.raises(sluice.SluiceError, match="did you mean 'Reader'"):
        DALIGenericIterator(label_pipeline(files, 2), ["label"], reader_name="Raeder")


@requires_file_reader
def test_size_without_reader_warns_and_counts(tmp_path):
    with pytest.warns(UserWarning, match="reader_name"):
        it = DALIGenericIterator(label_pipeline(make_files(tmp_path, 7), 2), ["label"], size=7,
                                 last_batch_policy=PARTIAL)
    assert len(it) == 4
    assert [b[0]["label"].ravel().tolist() for b in it] == [[1, 2], [3, 4], [5, 6], [7]]


def test_empty_pipeline_is_an_error():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1)
    with pipe:
        pipe.set_outputs(fn.external_source(source=[]))
    with pytest.raises(RuntimeError, match="no data"):
        DALIGenericIterator(pipe, ["x"])


@requires_testing_ops
def test_dynamic_shape_and_pipeline_list_accepted():
    pipes = []
    for k in range(2):
        p = sluice.Pipeline(batch_size=2, num_threads=1, seed=k)
        with p:
            p.set_outputs(fn.testing.add_constant(fn.testing.counter(), value=100 * k))
        pipes.append(p)
    with pytest.warns(UserWarning):
        it = DALIGenericIterator(pipes, ["v"], size=8, dynamic_shape=True)
    assert len(it) == 2
    got = [[d["v"].ravel().tolist() for d in b] for b in it]
    assert got == [[[0, 1], [100, 101]], [[2, 3], [102, 103]]]


def test_shard_info_from_environment(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "3")
    assert shard_info() == (1, 3)
    monkeypatch.delenv("RANK")
    monkeypatch.delenv("WORLD_SIZE")
    assert shard_info() == (0, 1)
