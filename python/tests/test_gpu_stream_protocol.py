"""The DLPack stream protocol of GPU outputs, checked against a recording stand-in for the
native batch (the GPU itself is exercised by tests/gpu on a machine with one)."""
import pytest

from sluice.tensors import TensorListGPU


class RecordingBatch:
    """Stands in for _sluice.Batch: records the calls TensorListGPU makes."""

    def __init__(self):
        self.calls = []
        self.layout = "CHW"
        self.dtype = "float32"

    def __len__(self):
        return 2

    @property
    def num_samples(self):
        return 2

    def shape(self, i):
        return (3, 4, 4)

    def shapes(self):
        return [(3, 4, 4)] * 2

    def source(self, i):
        return f"file{i}.jpg"

    def is_single_tensor(self):
        return True

    def wait_on(self, stream):
        self.calls.append(("wait_on", stream))

    def synchronize(self):
        self.calls.append(("synchronize",))

    def single_tensor(self, device_id=0, release_stream=None):
        self.calls.append(("single_tensor", device_id, release_stream))
        return View()

    def sample(self, i, device_id=0, release_stream=None):
        self.calls.append(("sample", i, device_id, release_stream))
        return View()


class View:
    def __dlpack__(self, **kwargs):
        assert "stream" not in kwargs  # ordering is done before the view is made
        return "capsule"


def test_consumer_stream_waits_and_is_recorded_for_release():
    b = RecordingBatch()
    assert TensorListGPU(b, device_id=1).__dlpack__(stream=0x7F00) == "capsule"
    assert b.calls == [("wait_on", 0x7F00), ("single_tensor", 1, 0x7F00)]


def test_no_stream_means_the_legacy_default_stream():
    b = RecordingBatch()
    TensorListGPU(b, device_id=0)[1].__dlpack__()
    assert b.calls == [("wait_on", 1), ("sample", 1, 0, 1)]


def test_stream_minus_one_skips_ordering():
    b = RecordingBatch()
    TensorListGPU(b, device_id=0).as_tensor().__dlpack__(stream=-1)
    assert b.calls == [("single_tensor", 0, None)]


def test_stream_zero_is_refused_as_ambiguous():
    b = RecordingBatch()
    with pytest.raises(BufferError, match="ambiguous"):
        TensorListGPU(b, device_id=0).__dlpack__(stream=0)
    assert b.calls == []


def test_synchronize_and_index_errors():
    b = RecordingBatch()
    t = TensorListGPU(b, device_id=0)
    t.synchronize()
    t[0].synchronize()
    assert b.calls == [("synchronize",), ("synchronize",)]
    assert t[-1]._index == 1
    with pytest.raises(IndexError):
        t[2]
