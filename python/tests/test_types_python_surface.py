"""sluice.types against DALI 2.4's nvidia.dali.types: names and numbers, printing, to_numpy_type /
to_dali_type, TensorLayout, CPU_ONLY_DEVICE_ID, CUDAStream, and the SampleInfo / BatchInfo objects
external_source callbacks receive."""
import pickle

import numpy as np
import pytest
import torch

import sluice
from sluice import fn, types


# DALI's DALIDataType numbers (dali/core/types.h); the enum's other members are numbered as there too.
DALI_TYPE_NUMBERS = {
    "NO_TYPE": -1, "UINT8": 0, "UINT16": 1, "UINT32": 2, "UINT64": 3, "INT8": 4, "INT16": 5, "INT32": 6,
    "INT64": 7, "FLOAT16": 8, "FLOAT": 9, "FLOAT64": 10, "BOOL": 11, "STRING": 12, "_BOOL_VEC": 13,
    "_INT32_VEC": 14, "_STRING_VEC": 15, "_FLOAT_VEC": 16, "FEATURE": 17, "_FEATURE_VEC": 18, "_FEATURE_DICT": 19,
    "IMAGE_TYPE": 20, "DATA_TYPE": 21, "INTERP_TYPE": 22, "TENSOR_LAYOUT": 23, "PYTHON_OBJECT": 24,
    "_TENSOR_LAYOUT_VEC": 25, "_DATA_TYPE_VEC": 26,
}


def test_data_type_members_and_module_names_are_dalis():
    assert {m.name: int(m) for m in types.DALIDataType} == DALI_TYPE_NUMBERS
    # pybind11's export_values puts the public members in the module, as in DALI.
    for name in DALI_TYPE_NUMBERS:
        if not name.startswith("_"):
            assert getattr(types, name) is types.DALIDataType[name]
    assert types.STRING == 12 and types.PYTHON_OBJECT == 24
    assert types.CPU_ONLY_DEVICE_ID == -99999
    assert (types.NHWC, types.NCHW, types.NFHWC, types.NFCHW, types.SAME) == ("HWC", "CHW", "FHWC", "FCHW", "")


def test_enums_print_as_dalis():
    assert str(types.UINT8) == "DALIDataType.UINT8" and repr(types.UINT8) == "<DALIDataType.UINT8: 0>"
    assert f"{types.FLOAT}" == "DALIDataType.FLOAT" and f"{types.FLOAT:d}" == "9"
    assert str(types.RGB) == "DALIImageType.RGB" and str(types.INTERP_LINEAR) == "DALIInterpType.INTERP_LINEAR"
    assert str(types.PipelineAPIType.BASIC) == "PipelineAPIType.BASIC"
    assert str(types.DALIDataType(24)) == "DALIDataType.PYTHON_OBJECT"
    assert types.UINT8 == 0 and int(types.FLOAT64) == 10  # still numbers


def test_to_numpy_type_and_to_dali_type():
    numeric = [t for t in types.DALIDataType if 0 <= t <= 11]
    for t in numeric:
        np_type = types.to_numpy_type(t)
        assert np.dtype(np_type).itemsize == {0: 1, 1: 2, 2: 4, 3: 8, 4: 1, 5: 2, 6: 4, 7: 8, 8: 2, 9: 4, 10: 8,
                                              11: 1}[int(t)]
        assert types.to_dali_type(np.dtype(np_type)) is t  # round trip through NumPy's dtype names
    assert types.to_numpy_type(types.FLOAT) is np.float32 and types.to_numpy_type(types.BOOL) is np.bool_
    with pytest.raises(KeyError):
        types.to_numpy_type(types.STRING)
    assert types.to_dali_type(torch.float16) is types.FLOAT16 and types.to_dali_type(torch.int64) is types.INT64
    assert types.to_dali_type("double") is types.FLOAT64 and types.to_dali_type(torch.bool) is types.BOOL
    with pytest.raises(TypeError, match="could not be converted"):
        types.to_dali_type(np.float32)  # the scalar class, not a dtype: rejected as by DALI
    with pytest.raises(TypeError, match="Sluice has no tensors of type STRING"):
        types.STRING.sluice_name


def test_tensor_layout():
    layout = types.TensorLayout("HWC")
    assert layout == "HWC" and layout != "CHW" and layout == types.TensorLayout("HWC")
    assert len(layout) == 3 and str(layout) == "HWC" and repr(layout) == "sluice.types.TensorLayout('HWC')"
    assert types.TensorLayout("CHW") < layout  # ordered as strings
    with pytest.raises(TypeError):
        types.TensorLayout(3)
    # A TensorLayout goes where a layout string does.
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.external_source(source=lambda: [np.zeros((2, 3), np.uint8)] * 2,
                                            layout=types.TensorLayout("HW")))
    assert pipe.run()[0].layout() == "HW"


def test_cuda_stream():
    assert types.CUDAStream().ptr == 0 and types.CUDAStream(1234).ptr == 1234


def test_external_source_callbacks_receive_dalis_sample_and_batch_info():
    seen = []

    def per_sample(info):
        seen.append(info)
        return np.array([info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx], np.int32)

    batches = []

    def per_batch(info):
        batches.append(info)
        return [np.array([info.iteration, info.epoch_idx], np.int32)] * 3

    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        a = fn.external_source(source=per_sample, batch=False)
        b = fn.external_source(source=per_batch, batch_info=True)
        pipe.set_outputs(a, b)
    for it in range(2):
        a_out, b_out = pipe.run()
        np.testing.assert_array_equal(a_out.as_array(), [[3 * it + i, i, it, 0] for i in range(3)])
        np.testing.assert_array_equal(b_out.as_array(), [[it, 0]] * 3)
    # (the pipeline may have asked for the next batches ahead)
    assert all(type(i) is types.SampleInfo for i in seen) and len(seen) >= 6
    assert all(type(i) is types.BatchInfo for i in batches) and len(batches) >= 2
    assert sluice.external_source.__module__ == "sluice.external_source"
    from sluice.external_source import BatchInfo, SampleInfo
    assert SampleInfo is types.SampleInfo and BatchInfo is types.BatchInfo
    info = pickle.loads(pickle.dumps(types.SampleInfo(5, 1, 2, 0)))  # parallel workers receive them pickled
    assert (info.idx_in_epoch, info.idx_in_batch, info.iteration, info.epoch_idx) == (5, 1, 2, 0)
    assert repr(types.BatchInfo(3, 1)) == "BatchInfo(iteration=3, epoch_idx=1)"
