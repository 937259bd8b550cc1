"""decoders.numpy: .npy bytes (written by NumPy itself) back to the arrays, as DALI's
fn.decoders.numpy; C and Fortran order, header versions 1.0-3.0, Sluice's dtypes, `dtype`
conversion by cast's rules, and the errors for what a batch cannot hold."""
import io

import numpy as np
import pytest

import sluice
from sluice import fn, pipeline_def, types


def npy(array, version=None):
    buf = io.BytesIO()
    if version is None:
        np.save(buf, array)
    else:
        np.lib.format.write_array(buf, array, version=version)
    return np.frombuffer(buf.getvalue(), np.uint8)


def run(samples, threads=1, **kwargs):
    @pipeline_def(batch_size=len(samples), num_threads=threads, device_id=None)
    def pipe():
        data = fn.external_source(source=lambda: samples, batch=True)
        return fn.decoders.numpy(data, **kwargs)

    p = pipe()
    p.build()
    return p.run()[0]


RNG = np.random.default_rng(3)
ARRAYS = [
    RNG.integers(0, 255, (4, 5, 3), dtype=np.uint8),
    np.asfortranarray(RNG.standard_normal((6, 7)).astype(np.float32)),
    RNG.integers(-1000, 1000, (2, 3, 4, 5)).astype(np.int16),
    np.asfortranarray(RNG.integers(-2**40, 2**40, (3, 2, 4))),
    RNG.standard_normal((5,)).astype(np.float16),
    RNG.standard_normal((3, 3)),
    RNG.integers(0, 2, (2, 9)).astype(bool),
    np.float32(2.5).reshape(()),
    np.zeros((0, 4), np.int32),
]


@pytest.mark.parametrize("array", ARRAYS, ids=lambda a: f"{a.dtype}{list(a.shape)}{'F' if a.flags.f_contiguous and a.ndim > 1 else ''}")
@pytest.mark.parametrize("version", [None, (2, 0), (3, 0)])
def test_round_trip_equals_numpy(array, version):
    out = run([npy(array, version)] * 2)
    for i in range(2):
        got = out.at(i)
        assert got.dtype == array.dtype and got.shape == array.shape
        np.testing.assert_array_equal(got, array)


def test_a_batch_of_shapes_and_threads():
    arrays = [RNG.standard_normal((RNG.integers(1, 9), 3)).astype(np.float32) for _ in range(7)]
    for threads in (1, 3):
        out = run([npy(a) for a in arrays], threads=threads)
        for a, i in zip(arrays, range(len(arrays))):
            np.testing.assert_array_equal(out.at(i), a)


def test_dtype_converts_by_casts_rules():
    floats = np.array([[-1.5, -0.5, 0.5, 1.5, 2.5], [300.7, -300.2, 127.5, 1e10, -1e10]])
    ints = np.array([[1, -2], [70000, 3]], np.int32)
    out = run([npy(floats), npy(floats.astype(np.float32)[:, :2].copy()), npy(ints)], dtype=types.INT16)

    @pipeline_def(batch_size=1, num_threads=1, device_id=None)
    def cast(a):
        return fn.cast(types.Constant(a), dtype=types.INT16)

    for i, a in enumerate([floats, floats.astype(np.float32)[:, :2].copy(), ints]):
        p = cast(a)
        p.build()
        np.testing.assert_array_equal(out.at(i), p.run()[0].at(0))
        assert out.at(i).dtype == np.int16


def test_mixed_types_need_dtype():
    with pytest.raises(sluice.SluiceError, match="one type"):
        run([npy(np.zeros((2, 2), np.float32)), npy(np.zeros((2, 2), np.int32))])
    out = run([npy(np.ones((2, 2), np.float32)), npy(np.full((2, 2), 3, np.int32))], dtype=types.FLOAT64)
    assert out.at(1).dtype == np.float64 and out.at(1)[0, 0] == 3


def test_mixed_dimensions_are_an_error():
    with pytest.raises(sluice.SluiceError, match="number of dimensions"):
        run([npy(np.zeros((2, 2))), npy(np.zeros((2,)))])


@pytest.mark.parametrize("bad, message", [
    (npy(np.arange(10, dtype=np.float64))[:-8], "truncated"),
    (np.frombuffer(b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'", np.uint8), ""),
    (np.frombuffer(b"not a numpy file at all", np.uint8), ""),
    (npy(np.zeros(3, np.complex64)), "complex|dtype|type"),
])
def test_bad_files_are_errors_naming_the_sample(bad, message):
    with pytest.raises(sluice.SluiceError, match="sample 1") as e:
        run([npy(np.zeros(3)), bad])
    assert "decoders.numpy" in str(e.value)
    if message:
        assert any(m in str(e.value) for m in message.split("|"))


def test_files_read_by_the_file_reader_name_their_path(tmp_path):
    (tmp_path / "a").mkdir()
    np.save(tmp_path / "a" / "x.npy", np.arange(6, dtype=np.int64).reshape(2, 3))
    (tmp_path / "a" / "y.npy").write_bytes(npy(np.arange(4.0)).tobytes()[:-5])

    @pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        data, _ = fn.readers.file(file_root=str(tmp_path), file_filters=["*.npy"])
        return fn.decoders.numpy(data)

    p = pipe()
    p.build()
    with pytest.raises(sluice.SluiceError, match="y.npy"):
        p.run()
