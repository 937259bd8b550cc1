"""sluice.plugin.pytorch's TorchPythonFunction and fn.torch_python_function (DALI's): the function gets
torch tensors, per sample by default or per batch; checked against NumPy on decoded photographs, with
several outputs, the errors (naming the operator, the output and the sample), the function's
traceback, and determinism across thread counts."""
import numpy as np
import pytest

from sluice.errors import ArgumentError

from plugin_helpers import build, check_against, run_error, same_across_threads

torch = pytest.importorskip("torch")

from sluice.plugin import pytorch as dpt  # noqa: E402
from sluice.plugin.pytorch import TorchPythonFunction  # noqa: E402
from sluice.plugin.pytorch.fn import torch_python_function  # noqa: E402

LUMA = torch.tensor([0.299, 0.587, 0.114])


def gray_and_mirror(t):
    assert isinstance(t, torch.Tensor) and t.dtype == torch.uint8
    return t.float() @ LUMA, t.flip(1)


def reference(image):
    return [image.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32), image[:, ::-1]]


def test_module_paths_are_dalis():
    assert dpt.fn.torch_python_function is torch_python_function
    assert dpt.TorchPythonFunction is TorchPythonFunction


def test_per_sample_is_the_default_two_outputs_match_numpy():
    check_against(build(lambda x: torch_python_function(x, function=gray_and_mirror, num_outputs=2)), reference,
                  rtol=1e-6)


def test_batch_gets_lists_of_tensors():
    def per_batch(ts):
        assert isinstance(ts, list) and all(isinstance(t, torch.Tensor) for t in ts)
        outs = [gray_and_mirror(t) for t in ts]
        return [o[0] for o in outs], [o[1] for o in outs]

    check_against(build(lambda x: torch_python_function(x, function=per_batch, num_outputs=2, batch_processing=True)),
                  reference, rtol=1e-6)


def test_batch_of_one_dense_tensor():
    # Same-shape samples: the function may return one tensor with the batch as leading extent.
    check_against(build(lambda x: torch_python_function(
        x, function=lambda ts: torch.stack(ts).permute(0, 3, 1, 2), batch_processing=True), resize=(20, 30)),
        lambda image: [image.transpose(2, 0, 1)])


def test_the_object_api_and_output_layouts():
    op = TorchPythonFunction(function=lambda t: t.permute(2, 0, 1), output_layouts="CHW")
    pipe = build(lambda x: [op(x), op(x)])
    images, a, b = pipe.run()
    assert a.layout() == "CHW" and b.layout() == "CHW"
    np.testing.assert_array_equal(np.array(a.at(1)), np.array(images.at(1)).transpose(2, 0, 1))


def test_deterministic_across_thread_counts():
    same_across_threads(lambda x: torch_python_function(x, function=gray_and_mirror, num_outputs=2))


def test_a_returned_array_is_an_error_naming_the_output():
    message = run_error(lambda x: torch_python_function(x, function=lambda t: t.numpy()))
    assert "torch_python_function: output 0 is a ndarray, expected a torch.Tensor" in message
    message = run_error(lambda x: torch_python_function(
        x, function=lambda ts: [t for t in ts[:-1]] + [3], batch_processing=True))
    assert "torch_python_function: sample 3 of output 0 is a int, expected a torch.Tensor" in message


def test_a_tensor_requiring_grad_is_an_error():
    message = run_error(lambda x: torch_python_function(x, function=lambda t: t.float().requires_grad_()))
    assert "torch_python_function: output 0 requires grad" in message


def test_mixed_dtypes_across_samples_are_an_error():
    message = run_error(lambda x: torch_python_function(
        x, function=lambda ts: [t if i else t.float() for i, t in enumerate(ts)], batch_processing=True))
    assert "the samples of an output must have one dtype" in message


def test_an_exception_in_the_function_carries_its_traceback():
    def broken_function(t):
        return t @ t  # uint8 HWC: not a matrix product

    message = run_error(lambda x: torch_python_function(x, function=broken_function))
    assert "RuntimeError" in message and "Traceback" in message and "broken_function" in message
    assert "[torch_python_function_" in message


def test_device_gpu_is_rejected_naming_device():
    with pytest.raises(ArgumentError) as info:
        TorchPythonFunction(function=lambda t: t, device="gpu")
    assert info.value.argument == "device"
