"""Shared helpers for the Python tests. Run from the repository root with PYTHONPATH=python."""
import importlib.machinery
import importlib.util
import os
import pathlib
import sys

import pytest

import sluice
from sluice import _sluice


def _hide_torch_built_for_another_python():
    """Debian installs torch for the suite's default Python only, in the folder every Python of the
    system shares: under another one (sid's 3.15 beside its 3.14) the package is found but its C
    extension is not there, and `import torch` raises an ImportError that pytest >= 8.2's
    importorskip no longer turns into a skip. Such a torch counts as absent (None in sys.modules
    makes `import torch` a ModuleNotFoundError). Looks for the file only: torch is not imported."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return
    folder = pathlib.Path(list(spec.submodule_search_locations)[0])
    if not any((folder / ("_C" + suffix)).exists() for suffix in importlib.machinery.EXTENSION_SUFFIXES):
        sys.modules["torch"] = None


_hide_torch_built_for_another_python()

# The folder holding the sluice package these tests import: the checkout's python/ (PYTHONPATH=python)
# or an installed wheel's site-packages (scripts/test_wheel_matrix.sh). Subprocesses that run an
# example get it as PYTHONPATH, so they import the same sluice.
SLUICE_PYTHONPATH = os.path.dirname(os.path.dirname(os.path.abspath(sluice.__file__)))


def registered(op_name):
    return op_name in _sluice.list_operators()


requires_file_reader = pytest.mark.skipif(not registered("readers.file"), reason="readers.file is not registered")
# fn.testing.* (counter, add_constant, ...) are in development builds only: a wheel has none.
requires_testing_ops = pytest.mark.skipif(not registered("testing.counter"),
                                          reason="fn.testing is in development builds only, not in a wheel")


def make_files(tmp_path, n):
    """n small files f0..f{n-1}; returns their paths. Contents differ in length (non-dense batches)."""
    paths = []
    for i in range(n):
        p = tmp_path / f"f{i:03d}.bin"
        p.write_bytes(bytes([i % 256]) * (i + 1))
        paths.append(str(p))
    return paths


def label_pipeline(files, batch_size, *, num_shards=1, shard_id=0, pad_last_batch=False, stick_to_shard=False,
                   labels=None, name="Reader", **pipe_kwargs):
    """A pipeline returning the labels of readers.file over `files` (labels default to 1..N)."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=1, seed=0, **pipe_kwargs)
    with pipe:
        _, label = sluice.fn.readers.file(
            files=files, labels=labels if labels is not None else list(range(1, len(files) + 1)),
            num_shards=num_shards, shard_id=shard_id, pad_last_batch=pad_last_batch,
            stick_to_shard=stick_to_shard, name=name)
        pipe.set_outputs(label)
    return pipe


@pytest.fixture
def counter_pipe():
    """batch 4 of testing.counter values (int64, shape [1]) and the same + 10."""
    pipe = sluice.Pipeline(batch_size=4, num_threads=2, seed=7)
    with pipe:
        c = sluice.fn.testing.counter()
        pipe.set_outputs(c, sluice.fn.testing.add_constant(c, value=10))
    return pipe
