"""Checkpointing, as DALI's: Pipeline(enable_checkpointing=True).checkpoint(), Pipeline(checkpoint=...),
and the iterators' checkpoints(): a restored pipeline (and iterator) continues with exactly the
batches the saved one would have returned, across epoch boundaries and with random operators."""
import os

import numpy as np
import pytest
import torch

import sluice
from sluice import fn
from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

IMAGES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "images")
FILES = sorted(os.path.join(IMAGES, f) for f in os.listdir(IMAGES) if f.endswith(".jpg"))[:10]


@sluice.pipeline_def
def augmenting():
    jpegs, labels = fn.readers.file(files=FILES, labels=list(range(len(FILES))), random_shuffle=True,
                                    initial_fill=4, name="Reader")
    images = fn.decoders.image_random_crop(jpegs)
    images = fn.resize(images, resize_x=32, resize_y=32)
    images = fn.crop_mirror_normalize(images, mirror=fn.random.coin_flip(), dtype=sluice.types.FLOAT,
                                      output_layout="CHW")
    return images, labels


def make(seed=11, **kw):
    pipe = augmenting(batch_size=3, num_threads=2, seed=seed, enable_checkpointing=True, **kw)
    pipe.build()
    return pipe


def as_numpy(outputs):
    return [np.array(out.as_tensor()) for out in outputs]


def run(pipe, n):
    return [as_numpy(pipe.run()) for _ in range(n)]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("taken", [0, 2, 5])
def test_restored_pipeline_returns_the_same_batches(taken, tmp_path):
    pipe = make()
    run(pipe, taken)
    text = pipe.checkpoint(filename=str(tmp_path / "ckpt"))
    expected = run(pipe, 6)  # 10 files, batch 3: crosses an epoch boundary
    assert (tmp_path / "ckpt").read_text() == text
    restored = make(seed=-1, checkpoint=(tmp_path / "ckpt").read_text())  # the checkpoint's seed wins
    assert_same(run(restored, 6), expected)


def test_checkpoint_needs_enable_checkpointing():
    pipe = augmenting(batch_size=3, num_threads=1, seed=1)
    pipe.build()
    pipe.run()
    with pytest.raises(sluice.SluiceError, match="enable_checkpointing"):
        pipe.checkpoint()


def test_bad_checkpoints_are_clear_errors():
    with pytest.raises(sluice.SluiceError, match="not a Sluice checkpoint"):
        make(checkpoint="garbage")
    with pytest.raises(sluice.SluiceError, match="not a Sluice checkpoint"):
        make(checkpoint=b"bytes")  # bytes are read as the text (DALI's iterators hand checkpoints over as bytes)
    with pytest.raises(sluice.SluiceError, match="not a Sluice checkpoint"):
        make(checkpoint=b"\xff\xfe")
    with pytest.raises(TypeError, match="checkpoint must be"):
        make(checkpoint=42)
    pipe = make()
    pipe.run()
    text = pipe.checkpoint()
    with pytest.raises(sluice.SluiceError, match="invalid checkpoint"):
        make(checkpoint=text[:-10])


def epoch_items(it):
    return [(b[0]["data"].clone(), b[0]["label"].clone()) for b in it]


@pytest.mark.parametrize("prepare_first_batch", [True, False])
@pytest.mark.parametrize("taken", [0, 1, 3])
def test_iterator_checkpoints_continue_the_epoch_and_the_next(taken, prepare_first_batch):
    def iterator(pipe):
        return DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                                          prepare_first_batch=prepare_first_batch)

    it = iterator(make())
    for _ in range(taken):
        next(it)
    (ckpt,) = it.checkpoints()
    rest = epoch_items(it)  # the rest of this epoch (4 batches of 3, the last one partial)
    it.reset()
    following = epoch_items(it)

    restored = iterator(make(checkpoint=ckpt))
    rest2 = epoch_items(restored)
    restored.reset()
    following2 = epoch_items(restored)
    assert len(rest) == 4 - taken and len(rest2) == len(rest)
    assert len(following) == 4 and len(following2) == 4
    for (x, y), (u, v) in zip(rest + following, rest2 + following2):
        assert torch.equal(x, u) and torch.equal(y, v)
    assert sum(len(y) for _, y in following2) == 10  # a whole epoch, partial last batch
