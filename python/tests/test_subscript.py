"""DataNode indexing (DALI's x[...]: tensor_subscript, subscript_dim_check, newaxis) against NumPy's
indexing of the same arrays, per sample; layouts, per-sample indices and the errors."""
import numpy as np
import pytest

import sluice
from sluice import fn, types


def run(build, data, layout="", threads=2, outputs=1):
    pipe = sluice.Pipeline(batch_size=len(data), num_threads=threads, device_id=None, seed=1)
    with pipe:
        x = fn.external_source(source=lambda: data, layout=layout)
        outs = build(x)
        pipe.set_outputs(*(outs if isinstance(outs, (list, tuple)) else [outs]))
    pipe.build()
    res = pipe.run()
    return [([np.array(o.at(i)) for i in range(len(o))], o.layout()) for o in res]


def images(dtype=np.uint8, shapes=((4, 6, 3), (5, 3, 3), (7, 8, 3))):
    rng = np.random.default_rng(3)
    return [rng.integers(0, 250, size=s).astype(dtype) for s in shapes]


SELECTIONS = [
    (lambda x: x[2], lambda a: a[2], "WC"),
    (lambda x: x[-1], lambda a: a[-1], "WC"),
    (lambda x: x[1:3], lambda a: a[1:3], "HWC"),
    (lambda x: x[:, 0], lambda a: a[:, 0], "HC"),
    (lambda x: x[:, -1], lambda a: a[:, -1], "HC"),
    (lambda x: x[:, :, 0], lambda a: a[:, :, 0], "HW"),
    (lambda x: x[:, :, 1:2], lambda a: a[:, :, 1:2], "HWC"),
    (lambda x: x[1:-1, 1:], lambda a: a[1:-1, 1:], "HWC"),
    (lambda x: x[-100:100], lambda a: a[-100:100], "HWC"),
    (lambda x: x[3:1], lambda a: a[3:1], "HWC"),
    (lambda x: x[::2], lambda a: a[::2], "HWC"),
    (lambda x: x[::-1], lambda a: a[::-1], "HWC"),
    (lambda x: x[:, ::-2, ::2], lambda a: a[:, ::-2, ::2], "HWC"),
    (lambda x: x[5:0:-2, 1], lambda a: a[5:0:-2, 1], "HC"),
    (lambda x: x[..., 0], lambda a: a[..., 0], "HW"),
    (lambda x: x[..., ::-1], lambda a: a[..., ::-1], "HWC"),
    (lambda x: x[1, ..., 2], lambda a: a[1, ..., 2], "W"),
    (lambda x: x[:, :], lambda a: a[:, :], "HWC"),
    (lambda x: x[sluice.newaxis], lambda a: a[np.newaxis], None),
    (lambda x: x[:, :, :, sluice.newaxis], lambda a: a[:, :, :, np.newaxis], None),
    (lambda x: x[0, sluice.newaxis], lambda a: a[0, np.newaxis], None),
]


@pytest.mark.parametrize("k", range(len(SELECTIONS)))
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_selection_matches_numpy(k, dtype):
    ours, theirs, layout = SELECTIONS[k]
    data = images(dtype)
    (got, got_layout), = run(ours, data, "HWC")
    for g, a in zip(got, data):
        want = theirs(a)
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)
    if layout is not None:
        assert got_layout == layout


def test_same_for_any_thread_count():
    data = images(np.float32)
    one = run(lambda x: x[::-2, 1:], data, "HWC", threads=1)[0][0]
    three = run(lambda x: x[::-2, 1:], data, "HWC", threads=3)[0][0]
    for a, b in zip(one, three):
        np.testing.assert_array_equal(a, b)


def test_named_newaxis_extends_the_layout():
    data = images()
    (got, layout), = run(lambda x: x[sluice.newaxis("F")], data, "HWC")
    assert layout == "FHWC"
    assert all(g.shape == (1,) + a.shape for g, a in zip(got, data))


def test_per_sample_indices_and_bounds():
    data = images(np.int32)
    idx = [np.array(i, dtype=np.int64) for i in (0, -1, 2)]
    lo = [np.array(v, dtype=np.int32) for v in (1, 0, -3)]

    def build(x):
        i = fn.external_source(source=lambda: idx)
        l = fn.external_source(source=lambda: lo)
        return x[i], x[l:, 0], x[:, i]

    (a, _), (b, _), (c, _) = run(build, data, "HWC")
    for s, arr in enumerate(data):
        np.testing.assert_array_equal(a[s], arr[int(idx[s])])
        np.testing.assert_array_equal(b[s], arr[int(lo[s]):, 0])
        np.testing.assert_array_equal(c[s], arr[:, int(idx[s])])


def test_shape_indexing_as_dali_docs():
    data = images()
    (h, _), (w, _) = run(lambda x: (x.shape()[0], x.shape()[-2]), data)
    assert [int(v) for v in h] == [a.shape[0] for a in data]
    assert [int(v) for v in w] == [a.shape[1] for a in data]


def test_out_of_range_index_names_the_sample():
    with pytest.raises(sluice.SluiceError, match=r"index 6 is out of range for axis 0 of length 5.*sample 1"):
        run(lambda x: x[6], images(shapes=((7, 2, 3), (5, 2, 3))))


def test_too_many_indices():
    with pytest.raises(sluice.SluiceError, match="too many indices"):
        run(lambda x: x[0, 0, 0, 0], images())
    with pytest.raises(sluice.SluiceError, match="too many indices"):
        run(lambda x: x[:, :, :, :], images())


def test_bad_subscripts_are_refused_where_written():
    data = images()
    with pytest.raises(TypeError, match="an index is an integer"):
        run(lambda x: x[1.5], data)
    with pytest.raises(ValueError, match="step cannot be zero"):
        run(lambda x: x[::0], data)
    with pytest.raises(IndexError, match="single ellipsis"):
        run(lambda x: x[..., ...], data)
    with pytest.raises(IndexError, match="newaxis"):
        run(lambda x: x[None], data)
    with pytest.raises(sluice.SluiceError, match="at_0.*integer type"):
        run(lambda x: x[fn.external_source(source=lambda: [np.float32(1)] * 3)], data)


def test_node_metadata_and_cpu():
    data = images()
    (lay, _), = run(lambda x: x.property("layout"), data, "HWC")
    assert bytes(lay[0]).decode() == "HWC"
    (src, _), = run(lambda x: x.source_info(), data)
    assert all(bytes(s).decode().endswith("(fed)") for s in src)  # fed data: the source that fed it
    pipe = sluice.Pipeline(batch_size=1, num_threads=1, device_id=None)
    with pipe:
        x = fn.external_source(source=lambda: [np.zeros(2)])
        assert x.cpu() is x
    assert sluice.newaxis is sluice.data_node.newaxis
