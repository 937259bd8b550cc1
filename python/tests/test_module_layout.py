"""DALI's public module paths, as its docs and examples import them, with `nvidia.dali` -> `sluice`."""
import importlib
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import sluice
from sluice import fn, ops, types


@pytest.mark.parametrize("module, names", [
    ("sluice", ["Pipeline", "pipeline_def", "fn", "ops", "types", "backend", "tensors", "plugin"]),
    ("sluice.pipeline", ["Pipeline", "pipeline_def"]),
    ("sluice.pipeline.experimental", ["pipeline_def"]),
    ("sluice.fn", ["readers", "decoders", "random", "resize", "crop_mirror_normalize", "crop", "flip", "transpose",
                   "cast", "copy", "external_source", "python_function", "dl_tensor_python_function"]),
    ("sluice.ops", ["readers", "decoders", "random", "Resize", "CropMirrorNormalize", "Crop", "Flip", "Transpose",
                    "Cast", "Copy", "ExternalSource", "PythonFunction", "DLTensorPythonFunction"]),
    ("sluice.types", ["DALIDataType", "DALIImageType", "DALIInterpType", "TensorLayout", "FLOAT", "UINT8", "RGB",
                      "INTERP_TRIANGULAR", "NCHW", "NHWC"]),
    ("sluice.backend", ["SetHostBufferShrinkThreshold", "SetHostBufferGrowthFactor", "SetDeviceBufferGrowthFactor",
                        "SetBufferGrowthFactor", "GetHostBufferShrinkThreshold", "GetHostBufferGrowthFactor",
                        "GetDeviceBufferGrowthFactor"]),
    ("sluice.tensors", ["TensorCPU", "TensorListCPU", "TensorGPU", "TensorListGPU"]),
    ("sluice.data_node", ["DataNode"]),
    ("sluice.plugin.base_iterator", ["LastBatchPolicy"]),
    ("sluice.plugin.pytorch", ["DALIGenericIterator", "DALIClassificationIterator", "LastBatchPolicy"]),
    ("sluice.plugin.jax", ["DALIGenericIterator", "LastBatchPolicy", "fn"]),
    ("sluice.plugin.jax.fn", ["jax_function"]),
    ("sluice.plugin.pytorch.fn", ["torch_python_function"]),
    ("sluice.plugin.pytorch.experimental.proxy", ["DALIServer", "DataLoader"]),
    ("sluice.plugin.numba", ["NumbaFunction", "fn", "experimental"]),
    ("sluice.plugin.numba.fn", ["numba_function", "experimental"]),
    ("sluice.plugin.numba.fn.experimental", ["numba_function"]),
    ("sluice.plugin.numba.experimental", ["NumbaFunction"]),
])
def test_module_paths(module, names):
    if module.startswith("sluice.plugin.pytorch"):
        pytest.importorskip("torch")
    if module.startswith("sluice.plugin.numba"):
        pytest.importorskip("numba")
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"{module} lacks {missing}"


def run_fresh(code):
    """Runs `code` in a fresh interpreter (nothing of sluice imported yet); returns its stdout."""
    python_dir = pathlib.Path(sluice.__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(python_dir))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_sluice_makes_tfrecord_constant_and_the_tfrecord_reader_available():
    """As `import nvidia.dali` gives nvidia.dali.tfrecord: no `import sluice.tfrecord` needed."""
    out = run_fresh("""
        import sluice
        feature = sluice.tfrecord.FixedLenFeature((), sluice.tfrecord.string, "")
        assert sluice.types.Constant(3) == 3
        assert sluice.fn.readers.tfrecord is sluice.tfrecord.tfrecord
        assert sluice.ops.readers.TFRecord is sluice.ops.TFRecordReader
        print(type(feature).__name__, sluice.types.Constant.__module__)
    """)
    assert out.split() == ["FixedLenFeature", "sluice.types"]


def test_importing_sluice_tfrecord_patches_nothing():
    """fn.readers.tfrecord is set when sluice.fn is built, not by sluice.tfrecord's import: running
    that module again (a reload) leaves every fn.readers function as it was."""
    run_fresh("""
        import importlib
        import sluice.fn
        before = dict(vars(sluice.fn.readers))
        import sluice.tfrecord
        reloaded = importlib.reload(sluice.tfrecord)
        assert dict(vars(sluice.fn.readers)) == before
        assert sluice.fn.readers.tfrecord is before["tfrecord"] and before["tfrecord"] is not reloaded.tfrecord
    """)


def test_from_imports_as_the_examples_write_them():
    from sluice.pipeline import pipeline_def, Pipeline  # noqa: F401  (ResNet-50 example)
    from sluice.pipeline.experimental import pipeline_def as experimental_def  # EfficientNet example
    import sluice.pipeline.experimental as experimental
    assert experimental.pipeline_def is experimental_def
    assert sluice.pipeline_def is pipeline_def


@pytest.mark.parametrize("legacy, name", [
    ("image_decoder", "decoders.image"), ("image_decoder_random_crop", "decoders.image_random_crop"),
    ("image_decoder_crop", "decoders.image_crop"), ("file_reader", "readers.file"),
    ("coin_flip", "random.coin_flip"), ("uniform", "random.uniform"), ("normal_distribution", "random.normal"),
])
def test_legacy_fn_names(legacy, name):
    path, _, leaf = name.rpartition(".")
    assert getattr(fn, legacy) is getattr(getattr(fn, path), leaf)


@pytest.mark.parametrize("legacy, cls", [
    ("FileReader", "readers.File"), ("ImageDecoder", "decoders.Image"),
    ("ImageDecoderRandomCrop", "decoders.ImageRandomCrop"), ("ImageDecoderCrop", "decoders.ImageCrop"),
    ("CoinFlip", "random.CoinFlip"), ("Uniform", "random.Uniform"), ("NormalDistribution", "random.Normal"),
])
def test_legacy_ops_names(legacy, cls):
    path, _, leaf = cls.rpartition(".")
    assert getattr(ops, legacy) is getattr(getattr(ops, path), leaf)


def test_experimental_pipeline_def_and_enable_conditionals():
    from sluice.pipeline.experimental import pipeline_def

    @pipeline_def(enable_conditionals=True)
    def pipe(flip_it=True):
        c = fn.testing.counter()
        if flip_it:  # a branch on a Python value, as in DALI's EfficientNet example
            c = c + 1
        return c

    p = pipe(batch_size=2, num_threads=1, seed=1)
    (out,) = p.run()
    assert [int(x) for x in out.as_array().ravel()] == [1, 2]

    @pipeline_def(enable_conditionals=True)
    def data_dependent():
        c = fn.testing.counter()
        if c:  # DALI's conditionals: per sample (test_conditionals.py has the rest)
            c = c + 1
        return c

    (out,) = data_dependent(batch_size=2, num_threads=1).run()
    assert [int(x) for x in out.as_array().ravel()] == [0, 2]

    @pipeline_def
    def without_conditionals():
        c = fn.testing.counter()
        if c:  # conditionals not enabled: a clear error, not a silently wrong graph
            c = c + 1
        return c

    with pytest.raises(TypeError, match="symbolic"):
        without_conditionals(batch_size=2, num_threads=1)

    @pipeline_def(debug=True)  # debug mode: the function runs eagerly (test_debug_mode.py has the rest)
    def debugged():
        return fn.testing.counter() + 1

    (out,) = debugged(batch_size=2, num_threads=1).run()
    assert [int(x) for x in out.as_array().ravel()] == [1, 2]


@pytest.mark.skipif(sluice.cuda_available(), reason="checks the CPU-only behaviour")
def test_gpu_on_a_cpu_only_build_is_a_clear_error():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1)
    with pipe:
        c = fn.testing.counter()
        with pytest.raises(sluice.SluiceError, match=r"\.gpu\(\).*(CUDA backend|CUDA device)"):
            c.gpu()


def test_device_cpu_works_on_every_operator():
    """device="cpu" is accepted by every registered operator (readers and random generators too)."""
    for name, schema in sluice.schema.all_schemas().items():
        assert "cpu" in schema.backends, name


def test_the_plugin_function_namespaces_import_in_a_fresh_interpreter():
    """`import sluice.plugin.numba.fn.experimental` (DALI's spelling) works before anything is imported."""
    pytest.importorskip("numba")
    pytest.importorskip("torch")
    out = run_fresh("""
        import sluice.plugin.numba.fn.experimental as numba_fn
        import sluice.plugin.pytorch.fn as torch_fn
        import sluice.plugin.jax.fn as jax_fn
        from sluice.plugin.numba.experimental import NumbaFunction
        print(numba_fn.numba_function.__name__, torch_fn.torch_python_function.__name__,
              jax_fn.jax_function.__name__, NumbaFunction.__name__)
    """)
    assert out.split() == ["numba_function", "torch_python_function", "jax_function", "NumbaFunction"]
