"""The JAX iterator, on a real (CPU) JAX.

JAX is an optional dependency of the package, but not of its tests: scripts/python_env.sh installs
jax[cpu] into the test venv, so a missing JAX fails here instead of skipping these tests silently.
"""
import numpy as np
import pytest

try:
    import jax
except ImportError as e:  # pragma: no cover - only where the venv was not made by python_env.sh
    raise ImportError("the JAX iterator tests need jax: run scripts/python_env.sh (installs jax[cpu])") from e

import sluice  # noqa: E402
from sluice import fn  # noqa: E402
from sluice.plugin.jax import DALIGenericIterator, LastBatchPolicy  # noqa: E402

from conftest import label_pipeline, make_files, requires_file_reader  # noqa: E402


def counter_pipe(offset=0):
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.testing.add_constant(fn.testing.counter(shape=[8]), value=offset))
    return pipe


@pytest.mark.filterwarnings("ignore:prefer `reader_name`")
def test_outputs_are_jax_arrays():
    it = DALIGenericIterator(counter_pipe(), ["x"], size=6)
    batches = list(it)
    assert len(batches) == 3
    assert isinstance(batches[0]["x"], jax.Array)
    np.testing.assert_array_equal(np.asarray(batches[1]["x"])[:, 0], [2, 3])


@pytest.mark.filterwarnings("ignore:prefer `reader_name`")
def test_several_pipelines_are_stacked():
    it = DALIGenericIterator([counter_pipe(0), counter_pipe(100)], ["x"], size=8)
    b = next(it)
    assert b["x"].shape == (2, 2, 8)
    np.testing.assert_array_equal(np.asarray(b["x"])[:, :, 0], [[0, 1], [100, 101]])


def test_partial_is_not_supported():
    with pytest.raises(ValueError, match="PARTIAL"):
        DALIGenericIterator(counter_pipe(), ["x"], size=4, last_batch_policy=LastBatchPolicy.PARTIAL)


@requires_file_reader
@pytest.mark.parametrize("policy,padded,expected", [
    (LastBatchPolicy.FILL, False, [[1, 2], [3, 4], [5, 6], [7, 1]]),
    (LastBatchPolicy.FILL, True, [[1, 2], [3, 4], [5, 6], [7, 7]]),
    (LastBatchPolicy.DROP, False, [[1, 2], [3, 4], [5, 6]]),
])
def test_reader_name_semantics(tmp_path, policy, padded, expected):
    pipe = label_pipeline(make_files(tmp_path, 7), 2, pad_last_batch=padded)
    it = DALIGenericIterator(pipe, ["label"], reader_name="Reader", last_batch_policy=policy)
    assert [np.asarray(b["label"]).ravel().tolist() for b in it] == expected
