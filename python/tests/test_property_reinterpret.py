"""fn.reinterpret (reshape that may change the type: NumPy's .view) and fn.get_property (source_info
of real files and tar members, layout) against what NumPy and the files say."""
import os
import pathlib
import tarfile

import numpy as np
import pytest

import sluice
from sluice import fn, types

IMAGES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "images"


def run(build, batch_size=2, threads=2):
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, device_id=None, seed=1)
    with pipe:
        outs = build()
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    return [([np.array(o.at(i)) for i in range(len(o))], o.layout()) for o in pipe.run()]


def images(dtype=np.uint8):
    rng = np.random.default_rng(3)
    return [rng.integers(0, 255, (3, 5, 4)).astype(dtype), rng.integers(0, 255, (2, 7, 4)).astype(dtype)]


def src(data, layout="HWC"):
    return fn.external_source(source=lambda: data, layout=layout)


def test_reinterpret_to_a_wider_type_is_numpys_view():
    data = images()
    (got, layout), = run(lambda: fn.reinterpret(src(data), dtype=types.INT32))
    for g, d in zip(got, data):
        assert g.dtype == np.int32 and np.array_equal(g, d.view(np.int32))  # (H, W, 1)
    assert layout == "HWC"


def test_reinterpret_to_a_narrower_type_and_with_a_shape():
    data = [a.astype(np.uint16) for a in images()]
    (got, _), = run(lambda: fn.reinterpret(src(data), dtype=types.UINT8))
    assert all(np.array_equal(g, d.view(np.uint8)) for g, d in zip(got, data))
    (got, layout), = run(lambda: fn.reinterpret(src(data), dtype=types.INT16, shape=[-1], layout="X"))
    assert all(np.array_equal(g, d.view(np.int16).reshape(-1)) for g, d in zip(got, data))
    assert layout == "X"
    (got, _), = run(lambda: fn.reinterpret(src(data), rel_shape=[1, -1]))  # no dtype: a reshape
    assert all(g.dtype == np.uint16 and g.shape == (d.shape[0], d.shape[1] * 4) for g, d in zip(got, data))


def test_reinterpret_errors_name_the_argument():
    data = [np.zeros((2, 3), np.uint8)] * 2
    with pytest.raises(sluice.SluiceError, match=r"reinterpret.*dtype.*3 bytes is not a whole number of int32"):
        run(lambda: fn.reinterpret(src(data, "HW"), dtype=types.INT32))
    with pytest.raises(sluice.SluiceError, match=r"reinterpret.*shape"):
        run(lambda: fn.reinterpret(src(data, "HW"), dtype=types.INT16, shape=[4]))


def test_get_property_source_info_of_files(tmp_path):
    root = tmp_path / "c0"
    root.mkdir()
    names = ["a.jpg", "b.jpg"]
    for n in names:
        (root / n).write_bytes((IMAGES / "photo_500x375.jpg").read_bytes())
    (src_info, _), (layout_info, _), = run(lambda: (lambda j: (fn.get_property(j[0], key="source_info"),
                                                               fn.get_property(fn.decoders.image(j[0]), key="layout")))(
        fn.readers.file(file_root=str(tmp_path))))
    assert [bytes(s).decode() for s in src_info] == [str(root / n) for n in names]
    assert [bytes(s).decode() for s in layout_info] == ["HWC", "HWC"]


def test_get_property_source_info_of_tar_members(tmp_path):
    tar = tmp_path / "shard.tar"
    with tarfile.open(tar, "w", format=tarfile.GNU_FORMAT) as t:
        for k in range(2):
            t.add(IMAGES / "photo_500x375.jpg", arcname=f"s{k}.jpg")
    (info, _), = run(lambda: fn.get_property(fn.readers.webdataset(paths=[str(tar)], ext=["jpg"])[0],
                                             key="source_info"))
    assert [bytes(s).decode() for s in info] == [f"{tar}:s0.jpg", f"{tar}:s1.jpg"]


def test_get_property_needs_a_known_key():
    with pytest.raises(sluice.ArgumentError, match="key"):
        fn.get_property(fn.external_source(source=lambda: [np.zeros(1)]), key="size")
    with pytest.raises(sluice.ArgumentError, match="key"):
        fn.get_property(fn.external_source(source=lambda: [np.zeros(1)]))
