"""sluice.plugin.pytorch's feed_ndarray, to_torch_type and DALIRaggedIterator (DALI's), against
NumPy / torch."""
import numpy as np
import pytest
import torch

import sluice
from sluice import fn, types
from sluice.plugin.pytorch import DALIRaggedIterator, LastBatchPolicy, feed_ndarray, to_torch_type
from sluice.tensors import TensorCPU, TensorListCPU

from conftest import make_files, requires_file_reader, requires_testing_ops


def test_to_torch_type_is_dalis_table():
    assert to_torch_type == {
        types.FLOAT: torch.float32, types.FLOAT64: torch.float64, types.FLOAT16: torch.float16,
        types.UINT8: torch.uint8, types.INT8: torch.int8, types.BOOL: torch.bool, types.INT16: torch.int16,
        types.INT32: torch.int32, types.INT64: torch.int64}


@requires_testing_ops
def test_feed_ndarray_copies_tensors_and_dense_batches():
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.counter(shape=[2, 3]))
    out, = pipe.run()
    dst = torch.zeros(3, 2, 3, dtype=torch.int64)
    assert feed_ndarray(out, dst) is dst
    np.testing.assert_array_equal(dst.numpy(), np.repeat(np.arange(3), 6).reshape(3, 2, 3))
    assert dst.data_ptr() != out.as_tensor().data_ptr()  # a copy: the tensor outlives the batch
    one = torch.empty(2, 3, dtype=torch.int64)
    feed_ndarray(out.as_tensor(), torch.empty(3, 2, 3, dtype=torch.int64))
    feed_ndarray(out[1], one)
    assert one.eq(1).all()
    # Python-made tensors too, float16 included
    half = TensorCPU(np.linspace(0, 1, 5, dtype=np.float16))
    got = feed_ndarray(half, torch.empty(5, dtype=torch.float16))
    np.testing.assert_array_equal(got.numpy(), np.linspace(0, 1, 5, dtype=np.float16))
    with pytest.raises(TypeError, match="element type"):
        feed_ndarray(out, torch.empty(3, 2, 3, dtype=torch.float32))
    with pytest.raises(ValueError, match="Shapes do not match"):
        feed_ndarray(out, torch.empty(3, 6, dtype=torch.int64))
    with pytest.raises(ValueError, match="contiguous"):
        feed_ndarray(out[0], torch.empty(3, 2, dtype=torch.int64).T)
    ragged = TensorListCPU([np.zeros(2, np.uint8), np.zeros(3, np.uint8)])
    with pytest.raises(ValueError, match="differ in shape"):
        feed_ndarray(ragged, torch.empty(2, 3, dtype=torch.uint8))
    with pytest.raises(TypeError, match="torch has no element type"):
        feed_ndarray(TensorCPU(np.zeros(2, np.uint16)), torch.empty(2, dtype=torch.int16))


RAGGED = [[np.arange(n, dtype=np.float32) + 10 * n for n in (1, 3, 2)],
          [np.arange(n, dtype=np.float32) + 10 * n for n in (4, 0, 1)]]


def ragged_pipe():
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        data = fn.external_source(source=iter(RAGGED))
        pipe.set_outputs(data, fn.testing.counter(shape=[2]), data)
    return pipe


@requires_testing_ops
def test_ragged_iterator_tags():
    it = DALIRaggedIterator(ragged_pipe(), ["list", "dense", "coo"],
                            output_types=[DALIRaggedIterator.SPARSE_LIST_TAG, DALIRaggedIterator.DENSE_TAG,
                                          DALIRaggedIterator.SPARSE_COO_TAG])
    assert (DALIRaggedIterator.DENSE_TAG, DALIRaggedIterator.SPARSE_LIST_TAG, DALIRaggedIterator.SPARSE_COO_TAG) == \
        ("dense", "sparse_list", "sparse_coo")
    batches = list(it)
    assert len(batches) == 2
    for k, (out,) in enumerate(batches):
        assert isinstance(out["list"], list) and len(out["list"]) == 3
        for t, expected in zip(out["list"], RAGGED[k]):
            assert t.dtype == torch.float32 and t.tolist() == expected.tolist()
        assert out["dense"].shape == (3, 2) and out["dense"][:, 0].tolist() == [3 * k, 3 * k + 1, 3 * k + 2]
        coo = out["coo"]
        assert coo.is_sparse and coo.dtype == torch.float32
        width = max(len(a) for a in RAGGED[k])
        dense = np.zeros((3, width), np.float32)
        for i, a in enumerate(RAGGED[k]):
            dense[i, :len(a)] = a
        assert coo.shape[1] == width
        np.testing.assert_array_equal(coo.to_dense().numpy(), dense[:coo.shape[0]])
        assert coo._nnz() == sum(len(a) for a in RAGGED[k])


@requires_testing_ops
@pytest.mark.filterwarnings("ignore:prefer `reader_name`")
def test_ragged_iterator_default_is_dense_and_argument_checks():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.counter(shape=[3]))
    (out,) = next(DALIRaggedIterator(pipe, ["x"], size=4))
    assert out["x"].tolist() == [[0, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="only DENSE_TAG"):
        DALIRaggedIterator(ragged_pipe(), ["a", "b", "c"], output_types=["dense", "ragged", "dense"])
    with pytest.raises(ValueError, match="distinct"):
        DALIRaggedIterator(ragged_pipe(), ["a", "a", "c"])
    with pytest.raises(ValueError, match="not dense"):
        DALIRaggedIterator(ragged_pipe(), ["a", "b", "c"])  # ragged data tagged dense


@requires_file_reader
def test_ragged_iterator_partial_last_batch_with_a_reader(tmp_path):
    files = make_files(tmp_path, 5)  # file k holds k + 1 bytes of value k
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        data, label = fn.readers.file(files=files, labels=list(range(5)), name="Reader")
        pipe.set_outputs(data, label, data)
    it = DALIRaggedIterator(pipe, ["bytes", "label", "coo"], reader_name="Reader",
                            output_types=["sparse_list", "dense", "sparse_coo"],
                            last_batch_policy=LastBatchPolicy.PARTIAL)
    seen = []
    for (out,) in it:
        assert len(out["bytes"]) == len(out["label"]) == out["coo"].shape[0]
        for t, label in zip(out["bytes"], out["label"].view(-1).tolist()):
            assert t.tolist() == [label] * (label + 1)
            seen.append(label)
        assert out["coo"].to_dense().sum().item() == sum(l * (l + 1) for l in out["label"].view(-1).tolist())
    assert seen == [0, 1, 2, 3, 4]  # the last batch holds the one sample left
