"""Shared data and pipelines of the sluice.ray tests (python/tests/test_ray_*.py).

The pipeline functions live in this module (not in a test file) so that Ray's workers, which import
them by name when they unpickle the ShardWorker, find them with PYTHONPATH=python:python/tests."""
import io
import os
import signal
import tarfile

import numpy as np
from PIL import Image

import sluice
from sluice import fn, types
from sluice.tools import cli

SHARDS = 8
PER_SHARD = 10  # with BATCH 4: batches of 4, 4, 2 (the last cut from the reader's wrap-around)
BATCH = 4
SIZE = 16


def make_shards(root, shards=SHARDS, per_shard=PER_SHARD, classes=None):
    """WebDataset tars root/shard-NNNNNN.tar (and .idx) of small JPEGs; each sample's .cls is its unique id
    (shard * per_shard + i), or its class (id % classes) with `classes`; returns the paths."""
    paths = []
    for s in range(shards):
        path = os.path.join(root, f"shard-{s:06d}.tar")
        with tarfile.open(path, "w") as tar:
            for i in range(per_shard):
                sid = s * per_shard + i
                label = sid if classes is None else sid % classes
                rng = np.random.default_rng(sid)
                pixels = rng.integers(0, 64, (24, 24, 3)) + (label % 4) * 60
                if classes is not None:  # a class-dependent pattern the network can learn
                    pixels[:, : 6 * (label + 1)] = 255 - pixels[:, : 6 * (label + 1)]
                buf = io.BytesIO()
                Image.fromarray(pixels.astype(np.uint8)).save(buf, "JPEG", quality=95)
                for ext, data in (("jpg", buf.getvalue()), ("cls", str(label).encode())):
                    info = tarfile.TarInfo(f"s{sid:05d}.{ext}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
        paths.append(path)
    assert cli.wds2idx_main([*paths, "--no-progress"]) == 0  # shard-NNNNNN.idx beside each tar
    return paths


def pipeline(shard, seed, batch_size=BATCH, size=SIZE, threads=1):
    """One tar, shuffled within by `seed`: images uint8 HWC size x size, labels ASCII."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, seed=seed, prefetch_queue_depth=2)
    with pipe:
        jpg, cls = fn.readers.webdataset(paths=[shard], index_paths=[shard[:-4] + ".idx"], ext=["jpg", "cls"],
                                         random_shuffle=True,
                                         initial_fill=64, name="Reader")
        img = fn.decoders.image_random_crop(jpg, output_type=types.RGB, random_area=[0.5, 1.0])
        img = fn.resize(img, resize_x=size, resize_y=size)
        pipe.set_outputs(img, cls)
    return pipe


def labels_to_int(columns):
    columns["label"] = sluice.ray.ascii_to_int(columns["label"])
    return columns


class KillOnce:
    """postprocess that SIGKILLs its actor's process at the `after`-th batch, once (marker file):
    an actor dying mid-shard as under the OOM killer."""

    def __init__(self, marker, after=2):
        self.marker, self.after, self.calls = marker, after, 0

    def __call__(self, columns):
        self.calls += 1
        if self.calls == self.after and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return labels_to_int(columns)


class AlwaysDie:
    """postprocess that kills its actor at every first batch: an actor that dies repeatedly."""

    def __call__(self, columns):
        os.kill(os.getpid(), signal.SIGKILL)
