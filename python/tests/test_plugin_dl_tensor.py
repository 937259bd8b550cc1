"""fn.dl_tensor_python_function / ops.DLTensorPythonFunction (DALI's): the function gets and returns
DLPack capsules, per batch by default (DALI's default for this operator) or per sample; checked
against NumPy on decoded photographs, with several outputs, the errors (naming the operator, the
output and the sample), the function's traceback, and determinism across thread counts."""
import numpy as np
import pytest

from sluice import fn, ops
from sluice import types as sluice_types
from sluice.errors import ArgumentError

from plugin_helpers import build, check_against, run_error, same_across_threads

torch = pytest.importorskip("torch")
tdl = torch.utils.dlpack


class Capsule:
    """NumPy reads a capsule through an object with the DLPack protocol."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def invert_and_column_sums(capsule):
    t = tdl.from_dlpack(capsule)
    return tdl.to_dlpack(255 - t), tdl.to_dlpack(t.to(torch.int64).sum(dim=0))


def reference(image):
    return [255 - image, image.astype(np.int64).sum(axis=0)]


def test_per_sample_two_outputs_match_numpy():
    check_against(build(lambda x: fn.dl_tensor_python_function(
        x, function=invert_and_column_sums, num_outputs=2, batch_processing=False)), reference)


def test_batch_is_the_default_and_gets_lists_of_capsules():
    seen = []

    def per_batch(capsules):
        seen.append((type(capsules).__name__, [type(c).__name__ for c in capsules]))
        # NumPy consumer: np.from_dlpack on the capsule; outputs as new capsules.
        arrays = [np.from_dlpack(Capsule(c)) for c in capsules]
        return [np.ascontiguousarray(a[::-1]).__dlpack__() for a in arrays]

    check_against(build(lambda x: fn.dl_tensor_python_function(x, function=per_batch)),
                  lambda image: [image[::-1]])
    assert seen[0] == ("list", ["PyCapsule"] * 4)


def test_batch_two_outputs_and_the_ops_api():
    def per_batch(capsules):
        ts = [tdl.from_dlpack(c) for c in capsules]
        return [tdl.to_dlpack(255 - t) for t in ts], [tdl.to_dlpack(t.to(torch.int64).sum(dim=0)) for t in ts]

    op = ops.DLTensorPythonFunction(per_batch, num_outputs=2)  # DALI's positional `function`
    check_against(build(lambda x: op(x)), reference)


def test_output_layouts():
    pipe = build(lambda x: fn.dl_tensor_python_function(x, function=lambda cs: cs, output_layouts="HWC"))
    images, out = pipe.run()
    assert out.layout() == "HWC"
    np.testing.assert_array_equal(np.array(out.at(0)), np.array(images.at(0)))


def test_deterministic_across_thread_counts():
    same_across_threads(lambda x: fn.dl_tensor_python_function(
        x, function=invert_and_column_sums, num_outputs=2, batch_processing=False))


def test_a_returned_array_is_an_error_naming_the_output_and_sample():
    message = run_error(lambda x: fn.dl_tensor_python_function(x, function=lambda cs: [np.zeros(3)] * len(cs)))
    assert "dl_tensor_python_function: sample 0 of output 0 is a ndarray, expected a DLPack capsule" in message


def test_a_consumed_capsule_is_an_error():
    def twice(capsule):
        t = tdl.from_dlpack(capsule)  # consumes the input's capsule
        return capsule if t.shape[0] else None

    message = run_error(lambda x: fn.dl_tensor_python_function(x, function=twice, batch_processing=False))
    assert "dl_tensor_python_function: output 0 is a DLPack capsule that was already consumed" in message


def test_an_exception_in_the_function_carries_its_traceback():
    def broken_function(capsule):
        raise ValueError("no such channel")

    message = run_error(lambda x: fn.dl_tensor_python_function(x, function=broken_function, batch_processing=False))
    assert "ValueError: no such channel" in message
    assert "Traceback" in message and "broken_function" in message
    assert "[dl_tensor_python_function_" in message  # the instance's default name


def test_wrong_number_of_outputs():
    message = run_error(lambda x: fn.dl_tensor_python_function(
        x, function=lambda c: tdl.to_dlpack(tdl.from_dlpack(c)), num_outputs=2, batch_processing=False))
    assert "expected a tuple of num_outputs=2 outputs" in message


def test_device_gpu_and_a_non_callable_are_rejected_at_the_call():
    with pytest.raises(ArgumentError) as info:
        fn.dl_tensor_python_function(function=lambda *a: None, device="gpu")
    assert info.value.argument == "device"
    with pytest.raises(ArgumentError) as info:
        ops.DLTensorPythonFunction(function=3)
    assert info.value.argument == "function"


def test_bool_samples_without_numpy_dlpack_bool_are_an_error_naming_the_input():
    try:
        np.zeros(1, bool).__dlpack__()
        pytest.skip("this NumPy exports bool by DLPack")
    except BufferError:
        pass
    message = run_error(lambda x: fn.dl_tensor_python_function(fn.cast(x, dtype=sluice_types.BOOL),
                                                               function=lambda cs: cs))
    assert "dl_tensor_python_function: sample 0 of input 0 of dtype bool cannot be passed as DLPack" in message
