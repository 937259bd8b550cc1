"""sluice.experimental.dynamic (DALI's dynamic mode, ``ndd``): DALI's documentation examples
(getting started, the readers reference, the RNG docstrings), results equal to the same operators
in a pipeline, data in and out (NumPy, DLPack, torch), and the pipeline's errors."""
import glob
import os

import numpy as np
import pytest

import sluice
import sluice.experimental.dynamic as ndd
from sluice import fn, types
from sluice.errors import ArgumentError, SluiceError

from conftest import make_files
from sample_images import sample_data_root  # noqa: E402

ROOT = sample_data_root()
IMAGE_DIR = os.path.join(ROOT, "train")
JPEGS = sorted(glob.glob(os.path.join(IMAGE_DIR, "c000", "*.jpg")))[:6]


def _encoded(n=4):
    return ndd.batch([np.fromfile(p, dtype=np.uint8) for p in JPEGS[:n]])


# --- DALI's getting-started example -------------------------------------------------------------
def test_getting_started_read_and_decode():
    batch_size = 8
    reader = ndd.readers.File(file_root=IMAGE_DIR)
    for jpegs, labels in reader.next_epoch(batch_size=batch_size):
        images = ndd.decoders.image(jpegs, device="cpu")
        break
    assert isinstance(images, ndd.Batch) and isinstance(labels, ndd.Batch)
    assert images.batch_size == 8
    assert len(images.shape[0]) == 3 and images.shape[0][2] == 3
    assert images.dtype == ndd.uint8 and images.layout == "HWC"
    first = images.select(0)
    assert isinstance(first, ndd.Tensor) and first.shape == images.shape[0]
    with pytest.raises(TypeError, match="not indexable"):
        images[0]


def test_select_and_slice_of_a_random_batch():
    xy = ndd.random.uniform(batch_size=16, range=[0, 1], shape=2)
    assert isinstance(xy, ndd.Batch) and xy.batch_size == 16 and xy.shape == [(2,)] * 16
    crop_x = xy.slice[0]
    assert crop_x.batch_size == 16 and crop_x.shape == [()] * 16
    np.testing.assert_array_equal([float(crop_x.select(i)) for i in range(16)],
                                  [float(np.asarray(xy.select(i))[0]) for i in range(16)])
    sample_0 = xy.select(0)
    assert isinstance(sample_0, ndd.Tensor) and sample_0.shape == (2,)
    assert xy.tensors[2:5].batch_size == 3 and len(list(xy.tensors)) == 16
    values = np.stack([np.asarray(t) for t in xy.tensors])
    assert ((values >= 0) & (values < 1)).all()


def test_tensor_call_without_batch_size_returns_a_tensor():
    t = ndd.random.uniform(range=[-1, 1], shape=[10])
    assert isinstance(t, ndd.Tensor) and t.shape == (10,) and t.dtype == ndd.float32


# --- random generators (DALI's RNG docstring examples) --------------------------------------------
def test_set_seed_makes_results_reproducible():
    ndd.random.set_seed(1234)
    result1 = np.asarray(ndd.random.uniform(range=(-1, 1), shape=[10]))
    more1 = np.asarray(ndd.random.normal(batch_size=3, shape=[2]).torch())
    ndd.random.set_seed(1234)
    result2 = np.asarray(ndd.random.uniform(range=(-1, 1), shape=[10]))
    more2 = np.asarray(ndd.random.normal(batch_size=3, shape=[2]).torch())
    np.testing.assert_array_equal(result1, result2)
    np.testing.assert_array_equal(more1, more2)
    # the same signature called again continues its stream
    assert not np.array_equal(result1, np.asarray(ndd.random.uniform(range=(-1, 1), shape=[10])))


def test_explicit_rng_and_clone():
    my_rng = ndd.random.RNG(seed=1234)
    a = np.asarray(ndd.random.uniform(range=(-1, 1), shape=[10], rng=my_rng))
    b = np.asarray(ndd.random.uniform(range=(-1, 1), shape=[10], rng=ndd.random.RNG(seed=1234)))
    np.testing.assert_array_equal(a, b)
    rng1 = ndd.random.RNG(seed=1234)
    rng1()
    rng2 = rng1.clone()
    assert [rng1() for _ in range(10)] == [rng2() for _ in range(10)]
    with pytest.raises(ValueError, match="rng must be an instance"):
        ndd.random.uniform(shape=[1], rng=42)


def test_explicit_seed_gives_the_same_values_each_call():
    a = np.asarray(ndd.random.uniform(range=(0, 1), shape=[5], seed=7))
    b = np.asarray(ndd.random.uniform(range=(0, 1), shape=[5], seed=7))
    np.testing.assert_array_equal(a, b)


def test_concepts_page_random_examples():
    images = ndd.decoders.image(_encoded(4))
    ndd.random.set_seed(42)
    angle = ndd.random.uniform(batch_size=4, range=(-10, 10))
    rotated = ndd.rotate(images, angle=angle)
    assert rotated.batch_size == 4 and rotated.dtype == ndd.uint8
    ndd.random.set_seed(42)
    again = ndd.rotate(images, angle=ndd.random.uniform(batch_size=4, range=(-10, 10)))
    for i in range(4):
        np.testing.assert_array_equal(np.asarray(rotated.select(i)), np.asarray(again.select(i)))

    # independent streams stay reproducible when the calls are reordered
    def draw(order):
        rngs = {"geom": ndd.random.RNG(seed=1), "color": ndd.random.RNG(seed=2)}
        ranges = {"geom": (-10, 10), "color": (0.8, 1.2)}
        return {k: np.asarray(ndd.random.uniform(batch_size=8, range=ranges[k], rng=rngs[k]).torch())
                for k in order}
    a, b = draw(["geom", "color"]), draw(["color", "geom"])
    np.testing.assert_array_equal(a["geom"], b["geom"])
    np.testing.assert_array_equal(a["color"], b["color"])
    assert ((a["color"] >= 0.8) & (a["color"] <= 1.2)).all()


def test_eval_modes_and_threads():
    with ndd.EvalMode.sync_cpu:
        assert ndd.EvalMode.current() is ndd.EvalMode.sync_cpu
        resized = ndd.resize(ndd.tensor(np.zeros((8, 8, 3), np.uint8), layout="HWC"), size=(4, 4))
    assert resized.shape == (4, 4, 3) and ndd.EvalMode.current() is ndd.EvalMode.default
    before = ndd.get_num_threads()
    try:
        ndd.set_num_threads(3)
        assert ndd.get_num_threads() == 3
        three = ndd.batch([np.zeros((2, 2, 1), np.uint8)] * 3, layout="HWC")
        assert ndd.flip(three, horizontal=1).batch_size == 3
        with pytest.raises(ValueError, match="positive"):
            ndd.set_num_threads(0)
    finally:
        ndd.set_num_threads(before)


def test_as_tensor_of_a_ragged_batch_needs_pad():
    ragged = ndd.batch([np.ones((2, 3), np.int16), np.ones((3, 1), np.int16)])
    with pytest.raises(ValueError, match="pad=True"):
        ndd.as_tensor(ragged)
    dense = ndd.as_tensor(ragged, pad=True)
    assert dense.shape == (2, 3, 3) and np.asarray(dense)[1, 2, 0] == 1 and np.asarray(dense)[0, 2, 0] == 0


# --- readers as objects (DALI's readers reference) --------------------------------------------------
def test_reader_epochs_are_full_batches(tmp_path):
    files = make_files(tmp_path, 10)
    reader = ndd.readers.File(files=files, labels=list(range(10)))
    epoch1 = [np.concatenate([np.asarray(t) for t in labels.tensors]) for _, labels in reader.next_epoch(batch_size=4)]
    assert [len(b) for b in epoch1] == [4, 4, 4]  # ceil(10 / 4) full batches, as DALI's
    np.testing.assert_array_equal(np.concatenate(epoch1)[:10], np.arange(10))
    epoch2 = list(reader.next_epoch(batch_size=4))
    assert len(epoch2) == 3
    with pytest.raises(SluiceError, match="keeps the batch size"):
        reader.next_epoch(batch_size=2)
    assert reader.get_metadata()["epoch_size"] == 10


def test_reader_sample_mode_and_leaving_an_epoch(tmp_path):
    files = make_files(tmp_path, 5)
    reader = ndd.readers.File(files=files, labels=[7, 8, 9, 10, 11])
    samples = list(reader.next_epoch())
    assert len(samples) == 5 and all(isinstance(x, ndd.Tensor) for s in samples for x in s)
    assert [int(np.asarray(label)[0]) for _, label in samples] == [7, 8, 9, 10, 11]
    it = reader.next_epoch()
    next(it)
    next(it)  # leave the epoch after 2 samples: the next epoch starts at its beginning
    assert [int(np.asarray(label)[0]) for _, label in reader.next_epoch()] == [7, 8, 9, 10, 11]


def test_reader_state_restores_the_position_and_the_shuffle(tmp_path):
    files = make_files(tmp_path, 12)
    kwargs = dict(files=files, labels=list(range(12)), random_shuffle=True, initial_fill=4, seed=5,
                  enable_checkpointing=True)

    def labels(batches):
        return [np.concatenate([np.asarray(t) for t in b.tensors]).tolist() for _, b in batches]

    reader = ndd.readers.File(**kwargs)
    it = reader.next_epoch(batch_size=5)
    first = labels([next(it), next(it)])
    state = reader.get_state()
    rest = labels(list(it)) + labels(reader.next_epoch(batch_size=5))
    assert len(first) == 2 and len(rest) == 1 + 3
    restored = ndd.readers.File(**kwargs)
    restored.set_state(state)
    # saved mid-epoch: the first next_epoch() after set_state is the rest of that epoch
    again = labels(restored.next_epoch(batch_size=5)) + labels(restored.next_epoch(batch_size=5))
    assert again == rest
    with pytest.raises(SluiceError, match="enable_checkpointing=True"):
        ndd.readers.File(files=files).get_state()


def test_reader_arguments_are_validated_where_it_is_made():
    with pytest.raises(ArgumentError, match="file_rot"):
        ndd.readers.File(file_rot=IMAGE_DIR)


# --- same results as the graph -------------------------------------------------------------------------
def test_operators_equal_the_pipeline():
    arrays = [np.fromfile(p, dtype=np.uint8) for p in JPEGS[:4]]
    pipe = sluice.Pipeline(batch_size=4, num_threads=2, device_id=None)
    with pipe:
        enc = fn.external_source(name="enc")
        img = fn.decoders.image(enc, output_type=types.RGB)
        res = fn.resize(img, resize_shorter=64)
        out = fn.crop_mirror_normalize(res, crop=(48, 48), mirror=1, mean=[10.0, 20, 30], std=[2.0, 3, 4],
                                       dtype=types.FLOAT, output_layout="CHW")
        # the decoded images are an output too, so the graph does not decode at a reduced scale for
        # the resize (a graph pass, see src/pipeline/scaled_decode.h, which a single call cannot make)
        pipe.set_outputs(img, res, out)
    pipe.build()
    pipe.feed_input("enc", arrays)
    g_img, g_res, g_out = pipe.run()

    images = ndd.decoders.image(ndd.as_batch(arrays), output_type=types.RGB)
    res = ndd.resize(images, resize_shorter=64)
    out = ndd.crop_mirror_normalize(res, crop=(48, 48), mirror=1, mean=[10.0, 20, 30], std=[2.0, 3, 4],
                                    dtype=types.FLOAT, output_layout="CHW")
    assert out.layout == "CHW" and out.dtype == ndd.float32
    for i in range(4):
        np.testing.assert_array_equal(np.asarray(images.select(i)), np.asarray(g_img[i]))
        np.testing.assert_array_equal(np.asarray(res.select(i)), np.asarray(g_res[i]))
        np.testing.assert_array_equal(np.asarray(out.select(i)), np.asarray(g_out[i]))
    # a Tensor call gives the batch call's sample
    one = ndd.resize(ndd.decoders.image(ndd.as_tensor(arrays[1]), output_type=types.RGB), resize_shorter=64)
    np.testing.assert_array_equal(np.asarray(one), np.asarray(g_res[1]))


def test_per_sample_argument_from_a_batch_and_broadcast_tensor():
    images = ndd.decoders.image(_encoded(4))
    flip = ndd.batch(np.array([0, 1, 0, 1], dtype=np.int32))
    flipped = ndd.flip(images, horizontal=flip)
    for i in range(4):
        src = np.asarray(images.select(i))
        np.testing.assert_array_equal(np.asarray(flipped.select(i)), src[:, ::-1] if i % 2 else src)
    # a Tensor input in a batch call is broadcast to every sample
    t = ndd.tensor(np.arange(12, dtype=np.uint8).reshape(2, 2, 3), layout="HWC")
    out = ndd.flip(t, horizontal=flip)
    assert out.batch_size == 4
    np.testing.assert_array_equal(np.asarray(out.select(1)), np.asarray(t)[:, ::-1])


def test_arithmetic_promotes_as_in_dali():
    b = ndd.batch([np.full((2,), 250, np.uint8), np.full((3,), 7, np.uint8)])
    s = b + 10
    assert isinstance(s, ndd.Batch) and s.dtype == ndd.int32
    np.testing.assert_array_equal(np.asarray(s.select(0)), [260, 260])
    assert (b + types.Constant(10).uint8()).dtype == ndd.uint8
    t = ndd.tensor([1.0, 4.0])
    np.testing.assert_allclose(np.asarray(ndd.math.sqrt(t) * 2), [2.0, 4.0])
    np.testing.assert_array_equal(np.asarray(3 - t), [2.0, -1.0])
    np.testing.assert_array_equal(np.asarray(t > 2), [False, True])


# --- data in and out ----------------------------------------------------------------------------------
def test_tensors_from_numpy_dlpack_and_torch():
    torch = pytest.importorskip("torch")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    wrapped = ndd.as_tensor(a)
    a[0, 0] = 42
    assert np.asarray(wrapped)[0, 0] == 42  # shares the memory
    copied = ndd.tensor(a)
    a[0, 0] = 0
    assert np.asarray(copied)[0, 0] == 42
    from_torch = ndd.as_tensor(torch.ones(2, 3))
    assert from_torch.dtype == ndd.float32 and from_torch.shape == (2, 3)
    from_dlpack = ndd.as_tensor(np.from_dlpack(a))
    np.testing.assert_array_equal(np.asarray(from_dlpack), a)
    assert ndd.tensor([1, 2]).dtype == ndd.int32  # Python ints are int32, as in DALI

    out = ndd.resize(ndd.tensor(np.zeros((8, 8, 3), np.uint8), layout="HWC"), size=[4, 4])
    assert torch.from_dlpack(out).shape == (4, 4, 3)
    assert np.from_dlpack(out).shape == (4, 4, 3)
    assert out.torch().dtype == torch.uint8

    batch = ndd.as_batch(torch.zeros(3, 4, 4, 1, dtype=torch.uint8), layout="HWC")
    assert batch.batch_size == 3 and batch.shape == [(4, 4, 1)] * 3
    result = ndd.flip(batch, vertical=1)
    assert result.torch().shape == (3, 4, 4, 1)
    ragged = ndd.batch([np.ones((2, 3), np.float32), np.ones((3, 1), np.float32)])
    with pytest.raises(ValueError, match="pad=True"):
        ragged.torch()
    padded = ragged.torch(pad=True)
    assert tuple(padded.shape) == (2, 3, 3) and float(padded[1, 0, 2]) == 0.0


# --- errors: the pipeline's ----------------------------------------------------------------------------
def test_errors_are_the_pipelines():
    t = ndd.tensor(np.zeros((4, 4, 3), np.uint8), layout="HWC")
    with pytest.raises(ArgumentError, match="did you mean 'size'"):
        ndd.resize(t, sizee=3)
    with pytest.raises(ArgumentError) as e:
        ndd.crop_mirror_normalize(t, dtype="no_such_type")
    assert e.value.op.startswith("crop_mirror_normalize")
    with pytest.raises(SluiceError, match=r"decoders\.image"):
        ndd.decoders.image(ndd.tensor(np.zeros(16, np.uint8)))
    with pytest.raises(ValueError, match="different batch sizes"):
        ndd.flip(_encoded(2), horizontal=ndd.batch(np.array([0, 1, 1], np.int32)))
    with pytest.raises(ArgumentError, match="rng is an argument of random operators"):
        ndd.flip(t, rng=ndd.random.RNG(1))
    # a graph that failed is not reused: the next call works
    assert ndd.resize(t, size=[2, 2]).shape == (2, 2, 3)
