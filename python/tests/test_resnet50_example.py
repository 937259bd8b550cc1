"""DALI's PyTorch ResNet-50 example (docs/examples/use_cases/pytorch/resnet50/main.py), CPU variant,
ported by changing `nvidia.dali` to `sluice` in its imports and nothing else in the pipeline code.

The pipeline below has the example's shape: one @pipeline_def with a training branch (legacy
fn.image_decoder_random_crop with the GPU-tuning paddings set to 0, resize_x/resize_y with
INTERP_TRIANGULAR, a coin-flip mirror) and a validation branch (legacy fn.image_decoder, a scalar
size=256 with mode="not_smaller", mirror=False), then crop_mirror_normalize with crop=(crop, crop);
DALIClassificationIterator with reader_name and LastBatchPolicy.PARTIAL, reset() between epochs,
and the example's `data[0]["label"].squeeze(-1).long()`. The example moves data to the GPU with
`.gpu()` even on its CPU path; here that happens only where CUDA is available (on a CPU-only build
`.gpu()` is a clear error, tested in test_module_layout.py).
"""
import numpy as np
import pytest

# sluice.plugin.pytorch imports torch: skipped, not an import error, where torch is missing.
torch = pytest.importorskip("torch")

# Only the module paths the example imports from (with `nvidia.dali` -> `sluice`).
from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy
from sluice.pipeline import pipeline_def
import sluice.types as types
import sluice.fn as fn

from sluice.device import cuda_available  # not in the example: chooses whether to call .gpu()

PIL = pytest.importorskip("PIL.Image")

CROP, SIZE = 32, 40  # the example's 224 and 256, scaled to the tiny test images


@pipeline_def
def create_dali_pipeline(data_dir, crop, size, shard_id, num_shards, dali_cpu=False, is_training=True):
    images, labels = fn.readers.file(file_root=data_dir, shard_id=shard_id, num_shards=num_shards,
                                     random_shuffle=is_training, pad_last_batch=True, name="Reader")
    dali_device = "cpu" if dali_cpu else "gpu"
    decoder_device = "cpu" if dali_cpu else "mixed"
    device_memory_padding = 211025920 if decoder_device == "mixed" else 0
    host_memory_padding = 140544512 if decoder_device == "mixed" else 0
    if is_training:
        images = fn.image_decoder_random_crop(images, device=decoder_device, output_type=types.RGB,
                                              device_memory_padding=device_memory_padding,
                                              host_memory_padding=host_memory_padding,
                                              random_aspect_ratio=[0.8, 1.25], random_area=[0.1, 1.0],
                                              num_attempts=100)
        images = fn.resize(images, device=dali_device, resize_x=crop, resize_y=crop,
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = fn.random.coin_flip(probability=0.5)
    else:
        images = fn.image_decoder(images, device=decoder_device, output_type=types.RGB)
        images = fn.resize(images, device=dali_device, size=size, mode="not_smaller",
                           interp_type=types.INTERP_TRIANGULAR)
        mirror = False
    if cuda_available():
        images = images.gpu()
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(crop, crop),
                                      mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                      std=[0.229 * 255, 0.224 * 255, 0.225 * 255], mirror=mirror)
    if cuda_available():
        labels = labels.gpu()
    return images, labels


@pytest.fixture
def imagenet_like(tmp_path):
    """3 classes x 5 JPEGs of different sizes and aspect ratios (7 x 5 = 15 samples with batch 4:
    the last batch of an epoch is partial)."""
    rng = np.random.default_rng(1)
    for c in range(3):
        (tmp_path / f"n0{c}").mkdir()
        for i in range(5):
            h, w = 44 + 6 * i, 70 - 5 * i
            PIL.fromarray(rng.integers(0, 255, size=(h, w, 3), dtype=np.uint8)).save(
                tmp_path / f"n0{c}" / f"img{i}.jpg", quality=90)
    return tmp_path


def make_loader(root, is_training):
    pipe = create_dali_pipeline(batch_size=4, num_threads=2, device_id=0, seed=12, data_dir=str(root), crop=CROP,
                                size=SIZE, dali_cpu=True, shard_id=0, num_shards=1, is_training=is_training)
    pipe.build()
    return DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL)


def run_epoch(loader):
    seen, labels = 0, []
    for i, data in enumerate(loader):
        input = data[0]["data"]
        target = data[0]["label"].squeeze(-1).long()
        assert input.dtype == torch.float32 and target.dtype == torch.int64
        assert tuple(input.shape[1:]) == (3, CROP, CROP)
        assert target.ndim == 1 and target.shape[0] == input.shape[0]
        seen += input.shape[0]
        labels += target.cpu().tolist()
    return seen, labels


def test_resnet50_example_pipeline_trains_and_validates_for_two_epochs(imagenet_like):
    train_loader = make_loader(imagenet_like, is_training=True)
    val_loader = make_loader(imagenet_like, is_training=False)
    for epoch in range(2):
        seen, labels = run_epoch(train_loader)
        assert seen == 15 and sorted(labels) == sorted([c for c in range(3) for _ in range(5)])
        seen, labels = run_epoch(val_loader)
        # PARTIAL: every sample once, in file order (no shuffling in validation), the last batch short.
        assert seen == 15 and labels == [c for c in range(3) for _ in range(5)]
        train_loader.reset()
        val_loader.reset()


def test_validation_branch_resizes_the_shorter_side_to_size(imagenet_like):
    """size=256, mode="not_smaller" is DALI's scalar size: the shorter side becomes `size`."""
    import sluice
    pipe = sluice.Pipeline(batch_size=5, num_threads=1, seed=0)
    with pipe:
        jpegs, _ = fn.readers.file(file_root=str(imagenet_like))
        images = fn.resize(fn.image_decoder(jpegs, output_type=types.RGB), size=SIZE, mode="not_smaller",
                           interp_type=types.INTERP_TRIANGULAR)
        pipe.set_outputs(images)
    (out,) = pipe.run()
    for i in range(5):
        h, w = 44 + 6 * i, 70 - 5 * i
        scale = SIZE / min(h, w)
        assert out.at(i).shape == (round(h * scale), round(w * scale), 3)
