"""readers.numpy: .npy files written by NumPy read back as np.load does (every dtype, C and Fortran
order, header versions 1.0/2.0/3.0), ROI reads match NumPy slicing for each out_of_bounds_policy and
read from disk only about the ROI's bytes, sharding/shuffling as the other readers, clear errors."""
import gc
import os

import numpy as np
import pytest

import sluice
from sluice import fn

DTYPES = ["uint8", "int8", "uint16", "int16", "int32", "int64", "float16", "float32", "float64", "bool"]


def make_array(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(dtype)


def run(batch_size=1, batches=1, **reader_args):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=2, device_id=None, seed=7)
    with pipe:
        data = fn.readers.numpy(name="Reader", **reader_args)
        pipe.set_outputs(data)
    pipe.build()
    out = []
    for _ in range(batches):
        (tl,) = pipe.run()
        out.append([(np.array(tl.at(i)), tl.source_info(i)) for i in range(len(tl))])
    return pipe, out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("order", ["C", "F"])
def test_every_dtype_and_order_round_trips(tmp_path, dtype, order):
    shapes = [(3, 5, 7), (4, 6), (9,), ()]
    files = []
    for k, shape in enumerate(shapes):
        a = make_array(dtype, shape, seed=k)
        if order == "F":
            a = np.asfortranarray(a)
        p = tmp_path / f"a{k}.npy"
        np.save(p, a)
        files.append(p)
    _, out = run(batch_size=1, batches=len(files), file_root=str(tmp_path))
    for (got, src), p in zip([b[0] for b in out], files):
        want = np.load(p)
        assert src.endswith(p.name)
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_header_versions(tmp_path, version):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    with open(tmp_path / "v.npy", "wb") as f:
        np.lib.format.write_array(f, np.asfortranarray(a), version=version)
    _, out = run(files=[str(tmp_path / "v.npy")])
    np.testing.assert_array_equal(out[0][0][0], a)


def test_zero_length_dims(tmp_path):
    np.save(tmp_path / "z.npy", np.zeros((0, 4), np.int16))
    _, out = run(file_root=str(tmp_path))
    assert out[0][0][0].shape == (0, 4)


def roi_case(tmp_path, order="C"):
    a = make_array("float32", (20, 30, 40), seed=3)
    if order == "F":
        a = np.asfortranarray(a)
    np.save(tmp_path / "r.npy", a)
    return np.ascontiguousarray(a)


@pytest.mark.parametrize("order", ["C", "F"])
def test_roi_matches_slicing(tmp_path, order):
    a = roi_case(tmp_path, order)
    root = str(tmp_path)
    cases = [
        (dict(roi_start=[2, 3, 4], roi_end=[10, 20, 30]), a[2:10, 3:20, 4:30]),
        (dict(roi_start=[5], roi_shape=[7], roi_axes=[1]), a[:, 5:12, :]),
        (dict(rel_roi_start=[0.25, 0.5], rel_roi_end=[0.75, 1.0], roi_axes=[0, 2]), a[5:15, :, 20:40]),
        (dict(rel_roi_start=[0.1], rel_roi_shape=[0.5], roi_axes=[2]), a[:, :, 4:24]),
        (dict(roi_end=[3], roi_axes=[0]), a[:3]),
        (dict(roi_start=[0, 0, 39], roi_end=[20, 30, 40]), a[:, :, 39:]),
    ]
    for args, want in cases:
        _, out = run(file_root=root, **args)
        got = out[0][0][0]
        assert got.shape == want.shape, args
        np.testing.assert_array_equal(got, want, err_msg=str(args))


@pytest.mark.parametrize("order", ["C", "F"])
def test_roi_out_of_bounds_policies(tmp_path, order):
    a = roi_case(tmp_path, order)
    root = str(tmp_path)
    args = dict(roi_start=[-3, 25], roi_end=[8, 35], roi_axes=[0, 1])
    _, out = run(file_root=root, out_of_bounds_policy="trim_to_shape", **args)
    np.testing.assert_array_equal(out[0][0][0], a[0:8, 25:30, :])
    _, out = run(file_root=root, out_of_bounds_policy="pad", fill_value=-5.5, **args)
    want = np.full((11, 10, 40), -5.5, np.float32)
    want[3:11, 0:5, :] = a[0:8, 25:30, :]
    np.testing.assert_array_equal(out[0][0][0], want)
    with pytest.raises(RuntimeError) as e:
        run(file_root=root, **args)
    msg = str(e.value)
    assert "[Reader]" in msg and "r.npy" in msg and "outside" in msg


def test_pad_fill_value_converts_like_numpy(tmp_path):
    """fill_value becomes the array's dtype as NumPy converts it: float16 ties round to even (1 + 2**-11
    lies halfway between 1 and the next float16; rounding ties up would give the latter)."""
    np.save(tmp_path / "h.npy", np.arange(4, dtype=np.float16))
    for fill in [1 + 2.0**-11, -2049.0, 2.5 * 2.0**-24, 0.5 * 2.0**-24]:
        _, out = run(file_root=str(tmp_path), roi_start=[-1], roi_end=[5], out_of_bounds_policy="pad",
                     fill_value=fill)
        got = out[0][0][0]
        want = np.concatenate([[fill], np.arange(4), [fill]]).astype(np.float16)
        assert got.dtype == np.float16
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16), err_msg=str(fill))


def test_roi_per_sample_argument_inputs(tmp_path):
    arrays = [make_array("int32", (10 + k, 12), seed=k) for k in range(4)]
    for k, a in enumerate(arrays):
        np.save(tmp_path / f"s{k}.npy", a)
    starts = [np.array([k, 1], np.int64) for k in range(4)]
    shapes = [np.array([3, 2 + k], np.int64) for k in range(4)]
    pipe = sluice.Pipeline(batch_size=4, num_threads=2, device_id=None, seed=7)
    with pipe:
        s = fn.external_source(source=lambda: starts, batch=True)
        sh = fn.external_source(source=lambda: shapes, batch=True)
        pipe.set_outputs(fn.readers.numpy(file_root=str(tmp_path), roi_start=s, roi_shape=sh))
    pipe.build()
    (tl,) = pipe.run()
    for k in range(4):
        np.testing.assert_array_equal(np.array(tl.at(k)), arrays[k][k:k + 3, 1:3 + k])


def rchar():
    with open("/proc/self/io") as f:
        for line in f:
            if line.startswith("rchar:"):
                return int(line.split()[1])
    raise AssertionError("no rchar")


def test_roi_reads_only_the_roi_bytes(tmp_path):
    """Bytes read by the process (rchar: read/pread bytes) for a ROI are proportional to the ROI."""
    a = np.zeros((64, 256, 256), np.float32)  # 16 MiB
    np.save(tmp_path / "big.npy", a)
    full_bytes = a.nbytes
    results = {}
    for name, args, roi_bytes in [
        ("slab", dict(roi_start=[10], roi_end=[14], roi_axes=[0]), 4 * 256 * 256 * 4),
        ("box", dict(roi_start=[0, 100, 100], roi_end=[8, 132, 132]), 8 * 32 * 32 * 4),
        ("quarter", dict(rel_roi_start=[0.0, 0.5], rel_roi_end=[1.0, 1.0], roi_axes=[0, 1]), full_bytes // 2),
        ("full", {}, full_bytes),  # last: a whole-array loader still reading ahead would count in the next case
    ]:
        pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None, seed=1, prefetch_queue_depth=1)
        with pipe:
            pipe.set_outputs(fn.readers.numpy(file_root=str(tmp_path), **args))
        pipe.build()
        before = rchar()
        pipe.run()
        pipe.run()
        read = rchar() - before
        del pipe
        gc.collect()
        results[name] = (read, roi_bytes)
        # Two batches (plus up to two prefetched) of the ROI, plus headers and other small reads.
        assert read <= 4 * roi_bytes + 256 * 1024, (name, read, roi_bytes)
        assert read >= 2 * roi_bytes, (name, read, roi_bytes)
    print("rchar per case (read, roi bytes):", results)
    assert results["box"][0] < results["full"][0] / 50


def write_dataset(tmp_path, n=10):
    for k in range(n):
        np.save(tmp_path / f"{k:02d}.npy", np.full((2,), k, np.int32))
    return str(tmp_path)


def ids(out):
    return [int(s[0][0]) for batch in out for s in batch]


def test_sharding_and_padding(tmp_path):
    root = write_dataset(tmp_path, 10)
    _, out0 = run(batch_size=5, batches=1, file_root=root, num_shards=2, shard_id=0)
    _, out1 = run(batch_size=5, batches=1, file_root=root, num_shards=2, shard_id=1)
    assert ids(out0) == [0, 1, 2, 3, 4] and ids(out1) == [5, 6, 7, 8, 9]
    pipe, out = run(batch_size=4, batches=2, file_root=root, num_shards=3, shard_id=2, pad_last_batch=True)
    meta = pipe.reader_meta("Reader")
    assert meta["number_of_shards"] == 3 and meta["shard_id"] == 2
    assert ids(out)[:4] == [6, 7, 8, 9]  # DALI's shard 2 of 3 over 10 samples: [6, 10)


def test_shuffle_is_deterministic_and_a_permutation(tmp_path):
    root = write_dataset(tmp_path, 10)
    _, a = run(batch_size=5, batches=2, file_root=root, random_shuffle=True, initial_fill=4)
    _, b = run(batch_size=5, batches=2, file_root=root, random_shuffle=True, initial_fill=4)
    assert ids(a) == ids(b)
    assert sorted(ids(a)) == list(range(10)) and ids(a) != list(range(10))


def test_file_filter_files_and_file_list(tmp_path):
    root = write_dataset(tmp_path, 4)
    os.makedirs(tmp_path / "sub")
    np.save(tmp_path / "sub" / "x.npy", np.full((2,), 42, np.int32))
    (tmp_path / "list.txt").write_text("03.npy\nsub/x.npy\n")
    _, out = run(batch_size=5, file_root=root)
    assert ids(out) == [0, 1, 2, 3, 42]
    _, out = run(batch_size=2, file_root=root, file_filter="0[12].npy")
    assert ids(out) == [1, 2]
    _, out = run(batch_size=2, file_root=root, files=["02.npy", "sub/x.npy"])
    assert ids(out) == [2, 42]
    _, out = run(batch_size=2, file_list=str(tmp_path / "list.txt"))
    assert ids(out) == [3, 42]


@pytest.mark.parametrize("content,reason", [
    (b"not a numpy file at all", "bad magic"),
    (b"\x93NUMPY\x09\x00\x10\x00{}", "version"),
])
def test_errors_name_reader_file_and_reason(tmp_path, content, reason):
    (tmp_path / "bad.npy").write_bytes(content)
    with pytest.raises(RuntimeError) as e:
        run(file_root=str(tmp_path))
    msg = str(e.value)
    assert "[Reader]" in msg and "bad.npy" in msg and reason in msg, msg


def test_unsupported_dtypes_and_big_endian_are_clear_errors(tmp_path):
    for name, a, reason in [("u4.npy", np.arange(3, dtype="<u4"), "unsupported dtype"),
                            ("c8.npy", np.arange(3, dtype=np.complex64), "unsupported dtype"),
                            ("be.npy", np.arange(3, dtype=">i4"), "big-endian")]:
        d = tmp_path / name[:-4]
        d.mkdir()
        np.save(d / name, a)
        with pytest.raises(RuntimeError) as e:
            run(file_root=str(d))
        msg = str(e.value)
        assert "[Reader]" in msg and name in msg and reason in msg, msg


def test_mixed_dtypes_in_a_batch_is_an_error(tmp_path):
    np.save(tmp_path / "a.npy", np.zeros(3, np.int32))
    np.save(tmp_path / "b.npy", np.zeros(3, np.float32))
    with pytest.raises(RuntimeError) as e:
        run(batch_size=2, file_root=str(tmp_path))
    assert "same dtype" in str(e.value)
