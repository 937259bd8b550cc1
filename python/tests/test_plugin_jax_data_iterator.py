"""sluice.plugin.jax.data_iterator (DALI's decorator, with `sharding=` and `devices=`) and
sluice.plugin.jax.clu's peekable iterator, on CPU JAX. The multi-device cases run in a subprocess
with XLA_FLAGS=--xla_force_host_platform_device_count=2 (two CPU devices)."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

try:
    import jax
except ImportError as e:  # pragma: no cover - only where the venv was not made by python_env.sh
    raise ImportError("the JAX iterator tests need jax: run scripts/python_env.sh (installs jax[cpu])") from e

import sluice  # noqa: E402
from sluice import fn  # noqa: E402
from sluice.plugin.jax import data_iterator  # noqa: E402
from sluice.plugin.jax.clu import DALIGenericPeekableIterator, peekable_data_iterator  # noqa: E402

from conftest import make_files, requires_file_reader  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:prefer `reader_name`")


@requires_file_reader
def test_data_iterator_single_pipeline(tmp_path):
    files = make_files(tmp_path, 6)

    @data_iterator(output_map=["label"], reader_name="Reader")
    def iterator_fn(offset):
        _, label = fn.readers.file(files=files, labels=list(range(6)), name="Reader")
        return label + offset

    it = iterator_fn(100, batch_size=2, seed=0)
    pipe = it._pipes[0]
    assert (pipe.num_threads, pipe.device_id) == (4, 0)  # DALI's defaults for the decorator
    labels = [np.asarray(b["label"]).ravel().tolist() for b in it]
    assert labels == [[100, 101], [102, 103], [104, 105]]
    assert isinstance(next(iter(iterator_fn(0, batch_size=3, num_threads=1)))["label"], jax.Array)
    with pytest.raises(ValueError, match="Only one of"):
        data_iterator(output_map=["x"], sharding=object(), devices=jax.devices())


@requires_file_reader
def test_data_iterator_resumes_from_checkpoints(tmp_path):
    files = make_files(tmp_path, 8)

    @data_iterator(output_map=["label"], reader_name="Reader")
    def iterator_fn():
        _, label = fn.readers.file(files=files, labels=list(range(8)), name="Reader")
        return label

    it = iterator_fn(batch_size=2, seed=0, enable_checkpointing=True)
    next(it)
    checkpoints = it.checkpoints()
    rest = [np.asarray(b["label"]).ravel().tolist() for b in it]
    again = iterator_fn(batch_size=2, seed=0, enable_checkpointing=True, checkpoints=checkpoints)
    assert [np.asarray(b["label"]).ravel().tolist() for b in again] == rest == [[2, 3], [4, 5], [6, 7]]


def test_sharding_over_one_device_builds_a_global_array():
    mesh = jax.sharding.Mesh(jax.devices()[:1], ("batch",))
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))

    @data_iterator(output_map=["x"], sharding=sharding, size=4)
    def iterator_fn(shard_id, num_shards):
        assert (shard_id, num_shards) == (jax.devices()[0].id, 1)
        return fn.testing.counter(shape=[3])

    x = next(iterator_fn(batch_size=2, seed=0))["x"]
    assert x.sharding == sharding and np.asarray(x).tolist() == [[0, 0, 0], [1, 1, 1]]
    with pytest.raises(TypeError, match="NamedSharding"):
        next(data_iterator(output_map=["x"], sharding=jax.sharding.SingleDeviceSharding(jax.devices()[0]),
                           size=4)(lambda shard_id, num_shards: fn.testing.counter())(batch_size=2))


def test_peekable_iterator_peek_and_peek_async():
    @peekable_data_iterator(output_map=["x"], size=8)
    def iterator_fn():
        return fn.testing.counter(shape=[2])

    it = iterator_fn(batch_size=2, seed=0)
    assert isinstance(it, DALIGenericPeekableIterator)
    spec = it.element_spec["x"]
    assert spec.shape == (2, 2) and spec.dtype == np.asarray(it.peek()["x"]).dtype
    first = it.peek()
    assert np.asarray(first["x"]).tolist() == [[0, 0], [1, 1]]
    assert it.peek() is first and next(it) is first  # peeking does not advance
    future = it.peek_async()
    peeked = future.result(timeout=30)
    assert np.asarray(peeked["x"]).tolist() == [[2, 2], [3, 3]] and next(it) is peeked
    assert np.asarray(next(it)["x"]).tolist() == [[4, 4], [5, 5]]
    assert np.asarray(next(it)["x"]).tolist() == [[6, 6], [7, 7]]
    with pytest.raises(StopIteration):
        it.peek()
    # iterating again starts the next epoch (DALI's __iter__)
    assert np.asarray(next(iter(it))["x"]).tolist() == [[8, 8], [9, 9]]


def test_peekable_iterator_refuses_a_change_of_shape():
    sizes = iter([2, 2, 3, 3])

    def source():
        n = next(sizes)
        return [np.zeros(n, np.float32)] * 2

    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0, prefetch_queue_depth=1)
    with pipe:
        pipe.set_outputs(fn.external_source(source=source))
    it = DALIGenericPeekableIterator([pipe], ["x"])
    assert it.element_spec["x"].shape == (2, 2)
    next(it)
    next(it)
    with pytest.raises(ValueError, match="shape or type of the output changed"):
        next(it)


MULTI_DEVICE = r"""
import numpy as np, jax, sys
from jax.sharding import Mesh, NamedSharding, PartitionSpec, PositionalSharding
from sluice import fn
from sluice.plugin.jax import data_iterator
from sluice.plugin.jax.clu import peekable_data_iterator
from conftest import make_files
import pathlib, tempfile

assert [d.id for d in jax.devices()] == [0, 1], jax.devices()
files = make_files(pathlib.Path(tempfile.mkdtemp()), 8)

def pipeline(shard_id, num_shards):
    _, label = fn.readers.file(files=files, labels=list(range(8)), shard_id=shard_id, num_shards=num_shards,
                               name="Reader")
    return label

mesh = Mesh(jax.devices(), ("batch",))
named = NamedSharding(mesh, PartitionSpec("batch"))
for sharding in (named, PositionalSharding(jax.devices()).reshape(2, 1)):
    it = data_iterator(pipeline, output_map=["label"], sharding=sharding, reader_name="Reader")(batch_size=4, seed=0)
    assert [p.max_batch_size for p in it._pipes] == [2, 2]
    batches = [b["label"] for b in it]
    assert len(batches) == 2
    for k, x in enumerate(batches):
        assert x.shape == (4, 1) and x.sharding == sharding, (x.shape, x.sharding)
        shards = {s.device.id: np.asarray(s.data).ravel().tolist() for s in x.addressable_shards}
        assert shards == {0: [2 * k, 2 * k + 1], 1: [4 + 2 * k, 5 + 2 * k]}, shards
        assert np.asarray(x).ravel().tolist() == [2 * k, 2 * k + 1, 4 + 2 * k, 5 + 2 * k]
    total = jax.jit(lambda a: a.sum())(batches[0])
    assert int(total) == 0 + 1 + 4 + 5

it = data_iterator(pipeline, output_map=["label"], devices=jax.devices(), reader_name="Reader")(batch_size=4, seed=0)
x = next(it)["label"]
assert x.shape == (2, 2, 1) and type(x.sharding).__name__ == "PmapSharding", (x.shape, x.sharding)
assert jax.pmap(lambda a: a.sum())(x).tolist() == [1, 9]

peek = peekable_data_iterator(pipeline, output_map=["label"], sharding=named, reader_name="Reader")(batch_size=4,
                                                                                                    seed=0)
assert peek.element_spec["label"].shape == (4, 1)
first = peek.peek()
assert next(peek) is first and np.asarray(first["label"]).ravel().tolist() == [0, 1, 4, 5]
print("multi-device OK")
"""


@requires_file_reader
def test_sharding_and_devices_over_two_cpu_devices():
    tests = pathlib.Path(__file__).resolve().parent
    python_dir = tests.parent
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               PYTHONPATH=os.pathsep.join([str(python_dir), str(tests)]), JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(MULTI_DEVICE)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "multi-device OK" in r.stdout
