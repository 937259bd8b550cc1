"""Errors from C++ arrive as SluiceError naming the operator, the argument and the sample source."""
import pytest

import sluice
from sluice import fn

from conftest import make_files, requires_file_reader


def test_runtime_error_names_operator_sample_and_source():
    pipe = sluice.Pipeline(batch_size=4, num_threads=2, seed=0)
    with pipe:
        c = fn.testing.counter()
        pipe.set_outputs(fn.testing.fail(c, fail_iteration=1, fail_sample=2, message="boom", name="failer"))
    pipe.run()
    with pytest.raises(sluice.SluiceError) as e:
        pipe.run()
    err = e.value
    assert isinstance(err, RuntimeError)
    assert err.op == "failer" and err.sample == 2 and err.iteration == 1
    assert err.source == "counter:sample-6"
    assert err.message == "boom"
    for part in ("[failer]", "boom", "sample 2", "source: counter:sample-6"):
        assert part in str(err)


def test_argument_error_from_cpp_names_the_argument():
    pipe = sluice.Pipeline(batch_size=2, num_threads=1, seed=0)
    with pipe:
        pipe.set_outputs(fn.random.coin_flip(probability=fn.random.uniform(range=[2.0, 3.0]), name="coin"))
    with pytest.raises(sluice.SluiceError) as e:
        pipe.run()
    assert e.value.op == "coin" and e.value.argument == "probability"
    assert "argument 'probability'" in str(e.value)


def test_errors_before_build():
    with pytest.raises(sluice.SluiceError, match="required"):
        fn.arithmetic.scalar(fn.testing.counter(), operation="add")  # `scalar` missing
    pipe = sluice.Pipeline(batch_size=2, num_threads=1)
    with pytest.raises(NotImplementedError, match="define_graph"):
        pipe.build()


@requires_file_reader
def test_missing_file_error_names_the_path(tmp_path):
    files = make_files(tmp_path, 2) + [str(tmp_path / "missing.bin")]
    pipe = sluice.Pipeline(batch_size=3, num_threads=1, seed=0)
    with pipe:
        data, _ = fn.readers.file(files=files, name="Reader")
        pipe.set_outputs(data)
    with pytest.raises(sluice.SluiceError) as e:
        pipe.build()
        pipe.run()
    assert "missing.bin" in str(e.value)
    assert e.value.op == "Reader"
