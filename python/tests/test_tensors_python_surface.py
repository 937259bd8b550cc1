"""DALI 2.4's TensorCPU / TensorListCPU API (backend_impl.cc's bindings) on tensors made in Python
and on pipeline outputs, checked against NumPy and torch; and sluice.backend's classes and
library-version functions."""
import ctypes
import gc

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import sluice
from sluice import backend, fn, types
from sluice.tensors import TensorCPU, TensorListCPU


def counter_pipe(batch_size=3, shape=(8,)):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.counter(shape=list(shape)))  # 8 x int64: 64-byte samples, back to back
    return pipe


def address(a):
    return np.asarray(a).__array_interface__["data"][0]


def test_tensor_list_from_an_array_shares_it():
    a = np.arange(24, dtype=np.int16).reshape(4, 2, 3)
    tl = TensorListCPU(a, "HW")
    assert len(tl) == 4 and tl.shape() == [(2, 3)] * 4 and tl.ndim() == 2
    assert tl.dtype == types.INT16 and tl.layout() == "HW" and tl.is_dense_tensor()
    assert tl.data_ptr() == a.ctypes.data and tl[2].data_ptr() == a[2].ctypes.data
    np.testing.assert_array_equal(tl.at(1), a[1])
    np.testing.assert_array_equal(tl.as_array(), a)
    a[3, 1, 2] = -7  # shared memory
    assert tl.at(3)[1, 2] == -7 and [int(t.as_array()[0, 0]) for t in tl] == [0, 6, 12, 18]
    t = tl.as_tensor()
    assert t.shape() == [4, 2, 3] and t.layout() == "NHW"  # DALI: "N" + the samples' layout
    assert torch.utils.dlpack.from_dlpack(tl).data_ptr() == a.ctypes.data
    with pytest.raises(ValueError, match="0-dim"):
        TensorListCPU(np.array(5))
    scalars = np.array([3.5, 4.5], np.float64)
    tl0 = TensorListCPU(scalars)  # samples of 0 dimensions, still views
    assert tl0.shape() == [(), ()] and tl0.ndim() == 0 and tl0.data_ptr() == scalars.ctypes.data
    assert float(tl0.at(1)) == 4.5 and tl0.as_array().tolist() == [3.5, 4.5]
    with pytest.raises(ValueError, match="same number of dimensions"):
        TensorListCPU(a, "HWC")
    with pytest.raises(ValueError, match="strided"):
        TensorListCPU(a[:, :, ::2])
    with pytest.raises(IndexError):
        tl[4]
    assert tl[-1].shape() == [2, 3]


def test_tensor_list_from_a_list_of_arrays_and_tensors():
    samples = [np.full((2, k + 1), k, np.float32) for k in range(3)]
    tl = TensorListCPU(samples, "XY")
    assert tl.shape() == [(2, 1), (2, 2), (2, 3)] and tl.layout() == "XY" and not tl.is_dense_tensor()
    for k in range(3):
        np.testing.assert_array_equal(tl.at(k), samples[k])
    # contiguous=True (the default) copies into one buffer, back to back
    assert tl.data_ptr() == address(tl.at(0)) and address(tl.at(1)) == address(tl.at(0)) + 8
    flat = tl.as_reshaped_tensor([12])
    np.testing.assert_array_equal(flat.as_array(), np.concatenate([s.ravel() for s in samples]))
    assert flat.layout() == ""  # not one more dimension than the samples' layout
    with pytest.raises(ValueError, match="not dense"):
        tl.as_tensor()
    # contiguous=False shares the samples
    shared = TensorListCPU(samples, None, False)
    assert address(shared.at(1)) == samples[1].ctypes.data
    with pytest.raises(ValueError, match="contiguous"):
        shared.data_ptr()
    # TensorCPUs keep their layout; the layout argument replaces it
    tensors = [TensorCPU(s, "HW") for s in samples]
    assert TensorListCPU(tensors).layout() == "HW" and TensorListCPU(tensors, "AB").layout() == "AB"
    with pytest.raises(TypeError, match="different data types"):
        TensorListCPU([np.zeros(2, np.float32), np.zeros(2, np.int32)])
    with pytest.raises(ValueError, match="same dimensionality"):
        TensorListCPU([np.zeros(2, np.float32), np.zeros((2, 2), np.float32)])
    with pytest.raises(TypeError, match="position 1"):
        TensorListCPU([np.zeros(2), "text"])
    empty = TensorListCPU([], "HWC")
    assert len(empty) == 0 and empty.ndim() == 3 and empty.dtype == types.NO_TYPE and empty.layout() == "HWC"


def test_tensor_list_from_dlpack_and_torch():
    t = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    for obj in (t, torch.utils.dlpack.to_dlpack(t)):
        tl = TensorListCPU(obj, "W")
        assert tl.shape() == [(4,)] * 3 and tl.dtype == types.INT32 and tl.layout() == "W"
        np.testing.assert_array_equal(tl.as_array(), t.numpy())
        assert tl.data_ptr() == t.data_ptr()  # no copy
    assert backend.CheckDLPackCapsule(torch.utils.dlpack.to_dlpack(t)) == (True, False)
    assert backend.CheckDLPackCapsule(t) == (False, False)


def test_broadcast_set_layout_reinterpret_and_reset():
    sample = TensorCPU(np.array([1.0, 2.0], np.float32), "C")
    tl = TensorListCPU.broadcast(sample, 3)
    assert tl.shape() == [(2,)] * 3 and tl.layout() == "C" and all(address(s) == sample.data_ptr() for s in tl)
    np.testing.assert_array_equal(tl.as_array(), np.tile([1.0, 2.0], (3, 1)))
    tl.set_layout("X")
    assert tl.layout() == "X" and tl[0].layout() == "X"
    tl.set_layout(None)
    assert tl.layout() == ""
    with pytest.raises(ValueError, match="same number of dimensions"):
        tl.set_layout("XY")
    tl.reinterpret(types.INT32)
    assert tl.dtype == types.INT32
    np.testing.assert_array_equal(tl.at(1), np.array([1.0, 2.0], np.float32).view(np.int32))
    with pytest.raises(ValueError, match="element size"):
        tl.reinterpret(types.INT64)
    tl.reset()
    assert len(tl) == 0 and tl.dtype == types.NO_TYPE


def test_tensor_cpu_methods():
    a = np.arange(6, dtype=np.uint8).reshape(1, 6, 1)
    t = TensorCPU(a, "ABC")
    assert t.shape() == [1, 6, 1] and t.ndim() == 3 and t.dtype == types.UINT8 and t.data_ptr() == a.ctypes.data
    assert t.squeeze(2) is True and t.shape() == [1, 6] and t.layout() == "AB"
    assert t.squeeze(1) is False and t.shape() == [1, 6]
    assert t.squeeze() is True and t.shape() == [6] and t.layout() == "B"
    assert t.squeeze() is False
    t.set_layout("")
    assert t.layout() == "" and t.get_property("layout") is None and t.get_property("source_info") is None
    out = np.zeros(6, np.uint8)
    t.copy_to_external(ctypes.c_void_p(out.ctypes.data))
    np.testing.assert_array_equal(out, np.arange(6))
    t.reinterpret(types.INT8)
    assert t.dtype == types.INT8 and torch.utils.dlpack.from_dlpack(t).dtype == torch.int8
    assert TensorCPU(np.zeros(3, np.uint32)).dtype == types.UINT32  # Python-side tensors hold every numeric type
    with pytest.raises(ValueError, match="null"):
        t.copy_to_external(ctypes.c_void_p(None))
    with pytest.raises(TypeError):
        TensorCPU([1, 2, 3])  # a list is not an array (as in DALI)
    assert str(TensorCPU(np.array([[1, 2]], np.int32), "HW")) == \
        "TensorCPU(\n    [[1 2]],\n    dtype=DALIDataType.INT32,\n    layout=HW,\n    shape=[1, 2])"
    assert repr(TensorCPU(np.array([1], np.int32))) == "TensorCPU(\n    dtype=DALIDataType.INT32,\n    shape=[1])"


def test_tensor_list_printing_is_dalis():
    tl = TensorListCPU([np.array([1, 2], np.int64), np.array([3], np.int64)], "X")
    assert str(tl) == ("TensorListCPU(\n    [[1 2]\n    [3]],\n    dtype=DALIDataType.INT64,\n    layout=\"X\",\n"
                       "    num_samples=2,\n    shape=[(2,), (1,)])")
    assert repr(tl) == ("TensorListCPU(\n    dtype=DALIDataType.INT64,\n    layout=\"X\",\n    num_samples=2,\n"
                        "    shape=[(2,), (1,)])")


def test_pipeline_outputs_have_the_same_api():
    out, = counter_pipe().run()
    assert isinstance(out, backend.TensorListCPU) and isinstance(out[0], backend.TensorCPU)
    assert backend.TensorListGPU is sluice.TensorListGPU and backend.TensorGPU is sluice.TensorGPU
    assert out.ndim() == 1 and out.data_ptr() == address(out.at(0))
    reshaped = out.as_reshaped_tensor([3, 2, 4])
    np.testing.assert_array_equal(reshaped.as_array(), np.repeat(np.arange(3), 8).reshape(3, 2, 4))
    ext = np.zeros((3, 8), np.int64)
    out.copy_to_external(ext.ctypes.data)
    np.testing.assert_array_equal(ext, np.repeat(np.arange(3), 8).reshape(3, 8))
    out.set_layout("W")
    assert out.layout() == "W" and out[1].layout() == "W" and out.as_tensor().layout() == "NW"
    # reinterpret and squeeze change only the view; DLPack hands over the new view without a copy
    out.reinterpret(types.FLOAT64)
    as_torch = torch.utils.dlpack.from_dlpack(out)
    assert as_torch.dtype == torch.float64 and as_torch.data_ptr() == out.data_ptr()
    np.testing.assert_array_equal(as_torch.numpy(), np.repeat(np.arange(3), 8).reshape(3, 8).view(np.float64))
    one, = counter_pipe(shape=(1, 8)).run()
    s = one[2]
    assert s.squeeze() and s.shape() == [8]
    t = torch.utils.dlpack.from_dlpack(s)
    assert t.tolist() == [2] * 8 and t.data_ptr() == s.data_ptr()
    del one, s, out
    gc.collect()
    assert t.tolist() == [2] * 8  # the view keeps the pipeline's buffer alive
    assert "num_samples=3" in repr(counter_pipe().run()[0])


def test_backend_versions_say_what_is_true_here():
    driver = None
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            driver = ctypes.CDLL(name)
            break
        except OSError:
            pass
    version = backend.GetCudaVersion()
    if not sluice.cuda_built():
        assert version == -1
    elif driver is None:
        assert version == 0  # what the CUDA runtime reports without a driver
    else:
        v = ctypes.c_int()
        assert driver.cuDriverGetVersion(ctypes.byref(v)) == 0 and version == v.value > 0
    assert backend.GetCufftVersion() == -1 and backend.GetNppVersion() == -1 and backend.GetNvimgcodecVersion() == -1
    assert backend.GetCUDADeviceCount() == sluice.device.cuda_device_count()
    if driver is None:
        assert backend.IsDriverInitialized() is False
    else:  # loaded (by this test at the latest): initialized if it answers, as DALI checks it
        count = ctypes.c_int()
        assert backend.IsDriverInitialized() is (driver.cuDeviceGetCount(ctypes.byref(count)) == 0)
    if sluice.cuda_built():
        with pytest.raises(NotImplementedError, match="nvJPEG"):
            backend.GetNvjpegVersion()
    else:
        assert backend.GetNvjpegVersion() == -1
    assert int(backend.DLDeviceType.kDLCUDAHost) == 3


class HostBackedGpuBatch:
    """Stands in for a GPU _sluice.Batch (none here): its views are host arrays, so that the GPU
    classes' metadata and DLPack-pointer code run."""

    device, layout, dtype, num_samples = "gpu", "HW", "float32", 2

    def __init__(self):
        self.block = np.arange(12, dtype=np.float32).reshape(2, 2, 3)

    def shape(self, i):
        return (2, 3)

    def shapes(self):
        return [(2, 3)] * 2

    def source(self, i):
        return ""

    def is_single_tensor(self):
        return True

    def is_contiguous(self):
        return True

    def is_dense(self):
        return True

    def wait_on(self, stream):
        pass

    def sample(self, i, device_id=0, release_stream=None):
        return self.block[i]

    def single_tensor(self, device_id=0, release_stream=None):
        return self.block


def test_gpu_classes_metadata_and_pointers():
    batch = HostBackedGpuBatch()
    tl = sluice.TensorListGPU(batch, device_id=0)
    assert tl.ndim() == 2 and tl.layout() == "HW" and tl.dtype == types.FLOAT and tl.device_id() == 0
    assert tl.data_ptr() == batch.block.ctypes.data and tl[1].data_ptr() == batch.block[1].ctypes.data
    assert tl.as_tensor().layout() == "NHW" and tl.as_tensor().ndim() == 3 and tl[0].dtype == types.FLOAT
    tl.set_layout("XY")
    assert tl[1].layout() == "XY"
    with pytest.raises(ValueError, match="same number of dimensions"):
        tl[0].set_layout("XYZ")
    with pytest.raises(NotImplementedError, match="copy_to_external"):
        tl.copy_to_external(ctypes.c_void_p(1))
