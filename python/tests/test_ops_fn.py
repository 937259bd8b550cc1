"""fn and ops generated from the registry: names, docs, argument checking, devices, arithmetic."""
import inspect

import numpy as np
import pytest

import sluice
from sluice import _sluice, fn, ops, types
from sluice.namespaces import camel_case

from conftest import registered


def test_every_registered_operator_and_argument_appears():
    for name in _sluice.list_operators():
        if name == "external_source":
            assert callable(fn.external_source) and callable(ops.ExternalSource)
            continue
        path, _, leaf = name.rpartition(".")
        fn_mod, ops_mod = fn, ops
        for part in filter(None, path.split(".")):
            fn_mod, ops_mod = getattr(fn_mod, part), getattr(ops_mod, part)
        func, cls = getattr(fn_mod, leaf), getattr(ops_mod, camel_case(leaf))
        info = _sluice.get_operator_info(name)
        assert cls.__doc__ == info.doc
        init = inspect.signature(cls.__init__).parameters
        assert all(arg.name in init for arg in info.arguments)
        if name == "readers.tfrecord":  # fn's is DALI's features={...} wrapper, not the schema's arguments
            assert func is sluice.tfrecord.tfrecord
            continue
        assert func.__doc__ == info.doc
        params = inspect.signature(func).parameters
        assert all(arg.name in params for arg in info.arguments)


def test_camel_case_names():
    assert camel_case("crop_mirror_normalize") == "CropMirrorNormalize"
    assert camel_case("image_random_crop") == "ImageRandomCrop"
    assert ops.random.CoinFlip is ops.CoinFlip
    assert ops.testing.AddConstant.schema_name == "testing.add_constant"


@pytest.mark.parametrize("legacy,target", [
    ("FileReader", "readers.File"), ("ImageDecoder", "decoders.Image"),
    ("ImageDecoderRandomCrop", "decoders.ImageRandomCrop"), ("Resize", "Resize"),
    ("CropMirrorNormalize", "CropMirrorNormalize"), ("CoinFlip", "random.CoinFlip"),
    ("Uniform", "random.Uniform"), ("Flip", "Flip")])
def test_legacy_class_names(legacy, target):
    obj = ops
    for part in target.split("."):
        obj = getattr(obj, part, None)
    if obj is None:
        pytest.skip(f"{target} is not registered in this build")
    assert getattr(ops, legacy) is obj


def test_help_shows_the_schema_doc(capsys):
    help(fn.testing.add_constant)
    text = capsys.readouterr().out
    assert "value (float or per-sample tensor, default 1)" in text
    assert "add_constant(input, /, *, device='cpu', name=None" in text


def test_unknown_argument_suggests_the_closest():
    pipe = sluice.Pipeline(batch_size=1)
    with pipe:
        c = fn.testing.counter()
        with pytest.raises(sluice.ArgumentError, match=r"unknown argument 'valeu' for operator 'testing.add_constant' "
                                                         r"\(did you mean 'value'\?\)") as e:
            fn.testing.add_constant(c, valeu=1)
        assert e.value.argument == "valeu" and e.value.op == "testing.add_constant"
        assert isinstance(e.value, TypeError) and isinstance(e.value, sluice.SluiceError)
    with pytest.raises(sluice.ArgumentError, match="did you mean 'probability'"):
        ops.random.CoinFlip(probabilty=0.5)


def test_unknown_operator_suggests_the_closest():
    with pytest.raises(AttributeError, match=r"no operator 'coin_flp' \(did you mean 'coin_flip'\?\)"):
        fn.random.coin_flp
    with pytest.raises(AttributeError, match="did you mean 'CoinFlip'"):
        ops.CoinFlp


def test_argument_type_errors_at_call_time():
    with pytest.raises(sluice.ArgumentError, match="argument 'probability': expected float, got 'high'"):
        fn.random.coin_flip(probability="high")
    with pytest.raises(sluice.SluiceError):
        fn.random.uniform(range=[1.0, 2.0, 3.0, "x"])


def test_constant_only_argument_rejects_a_data_node():
    with pytest.raises(sluice.ArgumentError, match="argument 'ms': cannot be given per sample"):
        fn.testing.sleep(fn.testing.counter(), ms=fn.random.uniform())


@pytest.mark.skipif(sluice.cuda_available(), reason="a CUDA device is available")
@pytest.mark.parametrize("device", ["mixed", "gpu"])
def test_gpu_devices_without_cuda_are_a_clear_error(device):
    expected = "needs a CUDA device" if sluice.cuda_built() else "CUDA backend, which is not available"
    with pytest.raises(sluice.SluiceError, match=expected) as e:
        fn.random.coin_flip(device=device)
    assert e.value.argument == "device"
    with pytest.raises(sluice.SluiceError, match=expected):
        ops.random.Uniform(device=device)


def test_bad_device_name():
    with pytest.raises(sluice.ArgumentError, match="device must be one of"):
        fn.random.coin_flip(device="tpu")


def test_per_sample_argument_input():
    pipe = sluice.Pipeline(batch_size=6, num_threads=1, seed=3)
    with pipe:
        coin = fn.random.coin_flip()
        pipe.set_outputs(coin, fn.testing.add_constant(fn.testing.counter(), value=coin))
    flips = []
    for k in range(4):
        coin, out = pipe.run()
        flips += coin.as_array().ravel().tolist()
        np.testing.assert_array_equal(out.as_array().ravel(), np.arange(6) + 6 * k + coin.as_array().ravel())
    assert set(flips) == {0, 1}


@pytest.mark.parametrize("expr,dtype,expected", [
    (lambda x: x * 2, np.int64, [0, 2, 4, 6]),
    (lambda x: 2 * x, np.int64, [0, 2, 4, 6]),
    (lambda x: x + 1, np.int64, [1, 2, 3, 4]),
    (lambda x: 10 - x, np.int64, [10, 9, 8, 7]),
    (lambda x: x - 1, np.int64, [-1, 0, 1, 2]),
    (lambda x: -x, np.int64, [0, -1, -2, -3]),
    (lambda x: x / 2, np.float32, [0, 0.5, 1, 1.5]),
    (lambda x: x * 0.5, np.float32, [0, 0.5, 1, 1.5]),
    (lambda x: x + 0.25, np.float32, [0.25, 1.25, 2.25, 3.25]),
    (lambda x: (x + 1) * 2 - 1, np.int64, [1, 3, 5, 7]),
])
def test_arithmetic_with_constants(expr, dtype, expected):
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(expr(fn.testing.counter()))
    out = pipe.run()[0].as_array().ravel()
    assert out.dtype == dtype
    np.testing.assert_allclose(out, expected)


@pytest.mark.parametrize("dtype", [types.UINT8, types.INT32, types.FLOAT16, types.FLOAT, types.FLOAT64])
def test_arithmetic_types(dtype):
    pipe = sluice.Pipeline(batch_size=4, num_threads=1, seed=0)
    with pipe:
        u = fn.random.uniform(range=[0, 10], dtype=dtype)
        pipe.set_outputs(u, u * 3, u / 4, 12 / (u + 1))
    u, times3, quarter, inv = pipe.run()
    x = u.as_array().astype(np.float64)
    assert times3.dtype == (types.INT32 if dtype == types.UINT8 else dtype)  # a Python int is INT32, as in DALI
    assert quarter.dtype == (dtype if dtype in (types.FLOAT16, types.FLOAT, types.FLOAT64) else types.FLOAT)
    rtol = 1e-2 if dtype == types.FLOAT16 else 1e-6
    expected = x * 3
    np.testing.assert_allclose(times3.as_array().astype(np.float64), expected, rtol=rtol)
    np.testing.assert_allclose(quarter.as_array().astype(np.float64), x / 4, rtol=rtol)
    np.testing.assert_allclose(inv.as_array().astype(np.float64), 12 / (x + 1), rtol=rtol)


def test_arithmetic_between_nodes_is_one_expression():
    c = fn.testing.counter()
    d = c + c * 2 - 1
    assert d.expression.startswith("sub(add(")  # one fused expression, not three operators


@pytest.mark.skipif(not registered("readers.file"), reason="readers.file is not registered")
def test_multiple_outputs_and_names():
    jpegs, labels = fn.readers.file(files=["/nonexistent"], name="R")
    assert jpegs.name == "R[0]" and labels.name == "R[1]"
    reader = ops.readers.File(files=["/nonexistent"])
    out = reader()
    assert isinstance(out, list) and len(out) == 2


def test_ops_call_time_name_and_repeated_calls():
    reader = ops.testing.Counter()
    a = reader(name="first")
    assert a.name == "first[0]"
    named = ops.testing.Counter(name="c")
    assert named().name == "c[0]" and named().name == "c_1[0]"
    with pytest.raises(TypeError, match="when constructing"):
        reader(device="cpu")
