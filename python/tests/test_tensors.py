"""TensorListCPU / TensorCPU: zero-copy hand-off by DLPack and __array_interface__, lifetimes."""
import gc

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import sluice
from sluice import fn, types

from conftest import make_files, requires_file_reader


def single_tensor_pipe(batch_size=4, shape=(8,)):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.counter(shape=list(shape)))  # 8 x int64 = 64 bytes per sample
    return pipe


def data_ptr(array_like):
    return np.asarray(array_like).__array_interface__["data"][0]


def test_dense_batch_to_torch_without_copy():
    out, = single_tensor_pipe().run()
    assert out.is_dense_tensor() and out.is_single_tensor()
    t = torch.utils.dlpack.from_dlpack(out)
    assert t.shape == (4, 8) and t.dtype == torch.int64
    assert t.data_ptr() == data_ptr(out.as_tensor())
    assert t[:, 0].tolist() == [0, 1, 2, 3]
    # The sample view is the same memory as the batch tensor's row.
    s = torch.utils.dlpack.from_dlpack(out[2])
    assert s.data_ptr() == t[2].data_ptr()


def test_numpy_views_share_memory():
    out, = single_tensor_pipe().run()
    arr = np.asarray(out)
    assert arr.__array_interface__["data"][0] == data_ptr(out.as_tensor())
    assert np.from_dlpack(out[1]).tolist() == [1] * 8
    assert not arr.flags.writeable  # pipeline outputs are read-only for NumPy
    assert out.at(3).tolist() == [3] * 8


def test_torch_tensor_keeps_the_buffer_alive():
    pipe = single_tensor_pipe(batch_size=2, shape=(64,))
    t = torch.utils.dlpack.from_dlpack(pipe.run()[0])
    for _ in range(4):
        pipe.run()
    del pipe
    gc.collect()
    assert t[:, 0].tolist() == [0, 1] and t[1].sum().item() == 64


def test_non_contiguous_dense_batch_is_copied_once():
    out, = single_tensor_pipe(shape=(3,)).run()  # 24-byte samples at 64-byte offsets
    assert out.is_dense_tensor() and not out.is_single_tensor()
    arr = out.as_array()
    assert arr.shape == (4, 3) and arr[:, 0].tolist() == [0, 1, 2, 3]
    assert torch.utils.dlpack.from_dlpack(out).tolist() == arr.tolist()


def test_tensor_list_accessors():
    out, = single_tensor_pipe(batch_size=3, shape=(2, 5)).run()
    assert len(out) == 3
    assert out.shape() == [(2, 5)] * 3
    assert out.dtype == types.INT64
    assert out.layout() == ""
    assert out.source_info(1) == "counter:sample-1"
    assert out[1].source_info() == "counter:sample-1"
    assert out[-1].shape() == [2, 5]
    assert [t.as_array()[0, 0] for t in out] == [0, 1, 2]


@requires_file_reader
def test_non_dense_batch_as_tensor_names_the_shapes(tmp_path):
    files = make_files(tmp_path, 3)  # sizes 1, 2, 3 bytes
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        data, _ = fn.readers.file(files=files)
        pipe.set_outputs(data)
    out, = pipe.run()
    assert not out.is_dense_tensor()
    assert out.shape() == [(1,), (2,), (3,)]
    assert out.at(2).tolist() == [2, 2, 2]
    assert out.source_info(2).endswith("f002.bin")
    with pytest.raises(ValueError, match=r"not dense .*\(1,\), \(2,\), \(3,\)"):
        out.as_tensor()
    with pytest.raises(ValueError, match="not dense"):
        torch.utils.dlpack.from_dlpack(out)
    assert torch.utils.dlpack.from_dlpack(out[1]).tolist() == [1, 1]
