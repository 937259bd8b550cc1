"""Sluice's train and val recipes in Meta's SPDL (PyPI `spdl`), built the way SPDL's ImageNet example
builds its loader: a source of (file, label), `aggregate(batch_size)`, one `pipe` stage that decodes
a batch with `spdl.io` (FFmpeg: demux, decode, then a filter graph that crops, resizes and converts
to RGB) run `concurrency=threads` batches at a time on `build(num_threads=threads)`, and a sink.

The example normalizes on the GPU with torch; on the CPU the same arithmetic ((x - mean) / std into
CHW float32) runs in NumPy inside the decode stage, as torchvision's Normalize runs in its workers.
Resizing is bilinear (Sluice's, DALI's and torchvision's default; SPDL's default is bicubic)."""
from __future__ import annotations

import math
import os
import random

from .bench_data import prepared_shards

SIZE = 224
VAL_RESIZE = 256


def list_samples(data: str) -> list[tuple]:
    """(source, label) of every image, in Sluice's file reader's order: a path and the index of its
    class folder (sorted), or, from `sluice prepare` shards, (tar, offset, size) and the cls member."""
    shards = prepared_shards(data)
    if shards is not None:
        from .bench_pipelines import TarJpegDataset

        return [((tar, off, size), cls) for tar, off, size, cls in TarJpegDataset(shards, None).items]
    root = os.path.join(data, "train")
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    return [(os.path.join(root, c, f), label) for label, c in enumerate(classes)
            for f in sorted(os.listdir(os.path.join(root, c)))]


def _read(src, label):
    """The bytes (or path) SPDL demuxes and the integer label of one sample."""
    if isinstance(src, str):
        return src, label
    tar, off, size = src
    with open(tar, "rb") as f:
        f.seek(off)
        data = f.read(size)
        if label is None:
            return data, 0
        f.seek(label[0])
        return data, int(f.read(label[1]))


def random_resized_crop(width: int, height: int, rng: random.Random) -> tuple[int, int, int, int]:
    """(x, y, w, h) of a crop with area in [0.08, 1] of the image and aspect ratio in [3/4, 4/3]
    (log-uniform), 10 tries, else the whole image cut to that ratio range: the window of
    torchvision's RandomResizedCrop and DALI's random_crop defaults."""
    area = width * height
    for _ in range(10):
        target = area * rng.uniform(0.08, 1.0)
        ratio = math.exp(rng.uniform(math.log(3 / 4), math.log(4 / 3)))
        w = int(round(math.sqrt(target * ratio)))
        h = int(round(math.sqrt(target / ratio)))
        if 0 < w <= width and 0 < h <= height:
            return rng.randint(0, width - w), rng.randint(0, height - h), w, h
    ratio = width / height
    w, h = (width, int(round(width / (4 / 3)))) if ratio > 4 / 3 else (
        (int(round(height * 3 / 4)), height) if ratio < 3 / 4 else (width, height))
    return (width - w) // 2, (height - h) // 2, w, h


class Samples:
    """The pipeline's source: every sample once per pass, shuffled anew each pass for training, each
    with a seed for its random crop and flip (so the decode threads share no generator)."""

    def __init__(self, samples, shuffle: bool, seed: int):
        self.samples, self.shuffle, self.rng = samples, shuffle, random.Random(seed)

    def __iter__(self):
        order = list(self.samples)
        if self.shuffle:
            self.rng.shuffle(order)
        for src, label in order:
            yield src, label, self.rng.getrandbits(32)


def make_decoder(recipe: str):
    """The pipe stage: a list of samples -> (images NCHW float32, labels N x 1 int32)."""
    import numpy as np
    import spdl.io

    from .bench_pipelines import MEAN, STD

    val_filter = spdl.io.get_video_filter_desc(scale_width=VAL_RESIZE, scale_height=VAL_RESIZE, scale_algo="bilinear",
                                               scale_mode="crop", crop_width=SIZE, crop_height=SIZE, pix_fmt="rgb24")

    def train_filter(packets, sample_seed):
        rng = random.Random(sample_seed)
        x, y, w, h = random_resized_crop(packets.width, packets.height, rng)
        flip = ",hflip" if rng.random() < 0.5 else ""
        return f"crop=w={w}:h={h}:x={x}:y={y},scale=w={SIZE}:h={SIZE}:flags=bilinear{flip},format=pix_fmts=rgb24"

    def decode(batch):
        frames, labels = [], []
        for src, label, sample_seed in batch:
            data, label = _read(src, label)
            packets = spdl.io.demux_image(data)
            desc = train_filter(packets, sample_seed) if recipe == "train" else val_filter
            frames.append(spdl.io.decode_packets(packets, filter_desc=desc))
            labels.append(label)
        hwc = spdl.io.to_numpy(spdl.io.convert_frames(frames))
        images = np.empty((len(frames), 3, SIZE, SIZE), np.float32)
        for c in range(3):
            np.subtract(hwc[..., c], MEAN[c], out=images[:, c], dtype=np.float32)
            images[:, c] *= np.float32(1 / STD[c])
        return images, np.array(labels, np.int32).reshape(-1, 1)

    return decode


def spdl_epochs(recipe: str, data: str, batch_size: int, threads: int, seed: int):
    """SPDL's run of Sluice's `recipe` ("train" or "val"), one iterable of (images, labels) per epoch."""
    from spdl.pipeline import PipelineBuilder

    source = Samples(list_samples(data), shuffle=recipe == "train", seed=seed)
    pipeline = (PipelineBuilder()
                .add_source(source, continuous=True)
                .aggregate(batch_size)
                .pipe(make_decoder(recipe), concurrency=threads)
                .add_sink(2)  # Sluice's and DALI's prefetch depth
                .build(num_threads=threads))
    with pipeline.auto_stop():
        while True:
            yield pipeline.get_iterator()
