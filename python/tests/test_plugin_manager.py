"""Operator libraries (DALI's plugin_manager.load_library): examples/operator_library/invert_op.cc
compiled here into a shared object with the system compiler, against the source tree's headers as
find_package(Sluice)'s sluice::sluice_operator_library target gives them when installed (the CTest
test install.find_package builds the same library through the installed package), then loaded:
its operator works in fn and ops like a built-in one, and the loader refuses what it must."""
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import sluice
from sluice import _sluice, fn, ops, plugin_manager

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCE = ROOT / "examples" / "operator_library" / "invert_op.cc"


def compile_library(out, *extra):
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    cmd = [cxx, "-std=c++20", "-O1", "-shared", "-fPIC", "-fvisibility=hidden", f"-I{ROOT / 'include'}",
           f"-I{ROOT / 'src'}", *extra, str(SOURCE), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    cuda = ["-DSLUICE_WITH_CUDA=1"] if _sluice.cuda_built else []
    return compile_library(tmp_path_factory.mktemp("ops") / "libsluice_example_ops.so", *cuda)


def run(build, batches, threads=2):
    pipe = sluice.Pipeline(batch_size=len(batches[0]), num_threads=threads, device_id=None)
    with pipe:
        nodes = [fn.external_source(source=(lambda b=b: b), layout=l) for b, l in batches_with_layouts(batches)]
        pipe.set_outputs(*build(*nodes))
    pipe.build()
    return [[np.array(o.at(i)) for i in range(len(o))] for o in pipe.run()], pipe


def batches_with_layouts(batches):
    return [(b, "HWC" if np.asarray(b[0]).ndim == 3 else "") for b in batches]


def test_the_library_registers_and_runs_its_operator(library):
    assert plugin_manager.load_library(library) == ["custom.invert"]
    assert plugin_manager.load_library(str(library)) == ["custom.invert"]  # a second load: nothing new
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8), rng.integers(0, 256, (2, 3, 3), dtype=np.uint8)]
    maxes = [np.array(100, np.int64), np.array(7, np.int64)]
    (a, b, c), pipe = run(lambda x, m: (fn.custom.invert(x), fn.custom.invert(x, max=m), ops.custom.Invert(max=50)(x)),
                          [images, maxes], threads=3)
    for i, img in enumerate(images):
        np.testing.assert_array_equal(a[i], 255 - img)
        np.testing.assert_array_equal(b[i], np.clip(int(maxes[i]) - img.astype(int), 0, None).astype(np.uint8))
        np.testing.assert_array_equal(c[i], np.clip(50 - img.astype(int), 0, None).astype(np.uint8))
    assert "custom.invert" in _sluice.list_operators()
    assert "out = max - in" in fn.custom.invert.__doc__


def test_its_schema_checks_arguments_at_the_call(library):
    plugin_manager.load_library(library)
    with pytest.raises(sluice.ArgumentError, match=r"custom.invert.*max.*\[0, 255\]"):
        fn.custom.invert(fn.external_source(source=lambda: [np.zeros(2, np.uint8)]), max=300)


def test_a_file_that_is_not_an_operator_library_is_refused(tmp_path):
    with pytest.raises(sluice.SluiceError, match="no such file"):
        plugin_manager.load_library(tmp_path / "missing.so")
    (tmp_path / "junk.so").write_bytes(b"not an ELF file")
    with pytest.raises(sluice.SluiceError, match=r"cannot load operator library '.*junk.so'"):
        plugin_manager.load_library(tmp_path / "junk.so")
    plain = tmp_path / "plain.cc"
    plain.write_text('extern "C" int nothing_here() { return 1; }\n')
    lib = tmp_path / "libplain.so"
    subprocess.run([shutil.which("g++"), "-shared", "-fPIC", str(plain), "-o", str(lib)], check=True)
    with pytest.raises(sluice.SluiceError, match="is not a Sluice operator library.*SLUICE_OPERATOR_LIBRARY"):
        plugin_manager.load_library(lib)


def test_a_library_built_for_another_configuration_is_refused(tmp_path):
    # The same source with the CUDA switch flipped: the interface fingerprint differs.
    flipped = [] if _sluice.cuda_built else ["-DSLUICE_WITH_CUDA=1"]
    lib = compile_library(tmp_path / "libother.so", *flipped)
    before = _sluice.list_operators()
    with pytest.raises(sluice.SluiceError, match="built against other Sluice headers or another configuration"):
        plugin_manager.load_library(lib)
    assert _sluice.list_operators() == before
