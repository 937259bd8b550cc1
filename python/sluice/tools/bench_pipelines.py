"""The pipelines sluice bench measures: Sluice's (training, validation, WebDataset, decode only,
RandAugment) and their peers' (bench_peers: PyTorch DataLoader + torchvision, DALI, SPDL), each as
the batches of an epoch."""
from __future__ import annotations

import glob
import os

from .bench_data import dataset_images, prepared_shards
from .bench_peers import PEER_PIPELINES, peer_of

# ImageNet's channel mean and standard deviation, in 0..255 units.
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

SLUICE_PIPELINES = ["train", "val", "train-wds", "decode-only", "train-randaug"]
ALL_PIPELINES = SLUICE_PIPELINES + PEER_PIPELINES


class TarJpegDataset:
    """The torchvision baseline's dataset over prepared shards: (PIL image, label) per sample, read
    through the shards' index files (member offsets), as a map-style dataset for DataLoader."""

    def __init__(self, shards, transform):
        self.transform = transform
        self.items = []  # (tar path, jpg offset, jpg size, (cls offset, cls size))
        for t in shards:
            with open(t[:-4] + ".idx", encoding="ascii") as f:
                f.readline()
                for line in f:
                    fields = line.split()
                    comps = {fields[k]: (int(fields[k + 1]), int(fields[k + 2])) for k in range(0, len(fields), 4)}
                    self.items.append((t, *comps["jpg"], comps.get("cls")))
        self._files = {}

    def __len__(self):
        return len(self.items)

    def _read(self, path, offset, size):
        f = self._files.get(path)
        if f is None:
            f = self._files[path] = open(path, "rb")
        f.seek(offset)
        return f.read(size)

    def __getitem__(self, i):
        import io

        from PIL import Image
        path, off, size, cls = self.items[i]
        img = Image.open(io.BytesIO(self._read(path, off, size))).convert("RGB")
        label = int(self._read(path, *cls)) if cls else 0
        return self.transform(img), label


def sluice_pipeline(kind: str, data: str, batch_size: int, threads, seed: int, dali: bool = False, **pipeline_kwargs):
    """Sluice's pipeline `kind`; with `dali`, the very same graph built by NVIDIA DALI (CPU only).
    `pipeline_kwargs` go to the Pipeline (prefetch_queue_depth, memory_budget, ...)."""
    if dali:
        import nvidia.dali as lib
        from nvidia.dali import fn, types
    else:
        import sluice as lib
        from sluice import fn, types

    @lib.pipeline_def(batch_size=batch_size, num_threads=threads, seed=seed, device_id=None, **pipeline_kwargs)
    def pipe():
        shards = prepared_shards(data)
        if shards is not None:  # a `sluice prepare` output: every pipeline reads its shards
            jpegs, labels = fn.readers.webdataset(paths=shards, index_paths=[t[:-4] + ".idx" for t in shards],
                                                  ext=["jpg", "cls"], random_shuffle=kind.startswith("train"),
                                                  name="Reader")
        elif kind == "train-wds":
            tars = sorted(glob.glob(os.path.join(data, "wds", "*.tar")))
            idx = [t[:-4] + ".idx" for t in tars]
            jpegs, labels = fn.readers.webdataset(paths=tars, index_paths=idx, ext=["jpg", "cls"],
                                                  random_shuffle=True, name="Reader")
        else:
            jpegs, labels = fn.readers.file(file_root=os.path.join(data, "train"),
                                            random_shuffle=kind.startswith("train"), name="Reader")
        if kind == "decode-only":
            return fn.decoders.image(jpegs, output_type=types.RGB), labels
        if kind == "train-randaug":
            # DALI's EfficientNet recipe: crop, resize, flip, RandAugment(n=2, m=9), normalize.
            from sluice.auto_aug import rand_augment
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_x=224, resize_y=224)
            images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
            # Nearest-neighbour geometry, as torchvision's RandAugment does by default.
            images = rand_augment.rand_augment(images, n=2, m=9, interp_type=types.INTERP_NN)
            mirror = 0
        elif kind in ("train", "train-wds"):
            images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_x=224, resize_y=224)
            mirror = fn.random.coin_flip(probability=0.5)
        else:
            images = fn.decoders.image(jpegs, output_type=types.RGB)
            images = fn.resize(images, resize_shorter=256)
            mirror = 0
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224),
                                          mean=MEAN, std=STD, mirror=mirror)
        return images, labels

    return pipe()


def torchvision_epochs(recipe: str, data: str, batch_size: int, threads: int, seed: int):
    """torchvision's run of Sluice's recipe: a DataLoader of ImageFolder (or the prepared shards)
    with torchvision transforms and `threads` workers, one pass of it per epoch."""
    import torch
    from torchvision import datasets, transforms

    normalize = transforms.Normalize(mean=[m / 255 for m in MEAN], std=[s / 255 for s in STD])
    if recipe == "train":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.ToTensor(), normalize])
    elif recipe == "train-randaug":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.RandAugment(num_ops=2, magnitude=9), transforms.ToTensor(), normalize])
    else:
        tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize])
    shards = prepared_shards(data)
    ds = TarJpegDataset(shards, tf) if shards is not None else datasets.ImageFolder(os.path.join(data, "train"), tf)
    loader = torch.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=recipe.startswith("train"),
                                         num_workers=threads, persistent_workers=False)
    while True:
        yield iter(loader)


def dali_epochs(recipe: str, data: str, batch_size: int, threads: int, seed: int):
    """DALI's run of Sluice's recipe, one iterable of (images, labels) per epoch. DALI 2.4's PyTorch
    iterator needs torch 2 (Debian has 1.13), so its loop is here: each batch copied once out of
    the pipeline's buffers, as the iterator does, and the last one cut to the epoch's end."""
    import numpy as np

    pipe = sluice_pipeline(recipe, data, batch_size, threads, seed, dali=True)
    pipe.build()
    n = dataset_images(data)

    def epoch():
        for start in range(0, n, batch_size):
            images, labels = pipe.run()
            keep = min(batch_size, n - start)
            yield np.array(images.as_tensor())[:keep], np.array(labels.as_tensor())[:keep]

    while True:
        yield epoch()


def epochs_of(kind: str, data: str, batch_size: int, threads: int, seed: int, built: dict | None = None):
    """Yields, once per epoch, an iterable of the (images, labels) batches of that epoch (building
    the pipeline or loader on the first step, so that its cost counts towards the first-batch
    latency). A Sluice pipeline, once built, is put in `built["pipe"]` (for its statistics)."""
    built = {} if built is None else built
    peer = peer_of(kind)
    if peer is not None:
        yield from peer[0].epochs_function()(peer[1], data, batch_size, threads, seed)
    elif kind == "decode-only":
        # Variable-size images: read the batches directly (no dense tensor for the iterator).
        pipe = sluice_pipeline(kind, data, batch_size, threads, seed)
        pipe.build()
        built["pipe"] = pipe
        iters = -(-pipe.epoch_size("Reader") // batch_size)
        while True:
            yield (pipe.run() for _ in range(iters))
    else:
        from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

        built["pipe"] = sluice_pipeline(kind, data, batch_size, threads, seed)
        it = DALIClassificationIterator(built["pipe"], reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
        while True:
            yield ((b[0]["data"], b[0]["label"]) for b in it)


def batch_signature(images, labels) -> dict:
    """The shape and element type of a batch's images and labels, alike for torch and NumPy arrays
    (a Sluice TensorList of decoded images has no single shape, and its shape() is a method: None)."""
    def sig(x):
        shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
        if shape is None or dtype is None or callable(shape) or callable(dtype):
            return None
        return [list(shape), str(dtype).rsplit(".", 1)[-1]]

    return {"images": sig(images), "labels": sig(labels)}
