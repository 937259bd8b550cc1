"""The pipelines sluice bench measures: Sluice's (training, validation, WebDataset, decode only,
RandAugment) and their PyTorch DataLoader + torchvision baselines, each as the batches of an epoch."""
from __future__ import annotations

import glob
import os

from .bench_data import prepared_shards

# ImageNet's channel mean and standard deviation, in 0..255 units.
MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]

SLUICE_PIPELINES = ["train", "val", "train-wds", "decode-only", "train-randaug"]
BASELINE_PIPELINES = ["torchvision-train", "torchvision-val", "torchvision-train-randaug"]
ALL_PIPELINES = SLUICE_PIPELINES + BASELINE_PIPELINES
# Each Sluice pipeline's torchvision counterpart, the "vs baseline" of the results.
BASELINE_OF = {"train": "torchvision-train", "train-wds": "torchvision-train", "val": "torchvision-val",
               "decode-only": None, "train-randaug": "torchvision-train-randaug"}


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


def sluice_pipeline(kind: str, data: str, batch_size: int, threads, seed: int, **pipeline_kwargs):
    """One of SLUICE_PIPELINES; `pipeline_kwargs` go to the Pipeline (prefetch_queue_depth, memory_budget...)."""
    import sluice
    from sluice import fn, types

    @sluice.pipeline_def(batch_size=batch_size, num_threads=threads, seed=seed, device_id=None, **pipeline_kwargs)
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


def torchvision_loader(kind: str, data: str, batch_size: int, threads: int):
    import torch
    from torchvision import datasets, transforms

    normalize = transforms.Normalize(mean=[m / 255 for m in MEAN], std=[s / 255 for s in STD])
    if kind == "torchvision-train":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.ToTensor(), normalize])
    elif kind == "torchvision-train-randaug":
        tf = transforms.Compose([transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
                                 transforms.RandAugment(num_ops=2, magnitude=9), transforms.ToTensor(), normalize])
    else:
        tf = transforms.Compose([transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize])
    shards = prepared_shards(data)
    ds = TarJpegDataset(shards, tf) if shards is not None else datasets.ImageFolder(os.path.join(data, "train"), tf)
    return torch.utils.data.DataLoader(ds, batch_size=batch_size, shuffle=kind.startswith("torchvision-train"),
                                       num_workers=threads, persistent_workers=False)


def epochs_of(kind: str, data: str, batch_size: int, threads: int, seed: int, built: dict | None = None):
    """Yields, once per epoch, an iterable of the batch sizes of that epoch (building the pipeline or
    loader on the first step, so that its cost counts towards the first-batch latency). A Sluice
    pipeline, once built, is put in `built["pipe"]` (for its statistics)."""
    built = {} if built is None else built
    if kind in BASELINE_PIPELINES:
        loader = torchvision_loader(kind, data, batch_size, threads)
        while True:
            yield (x.shape[0] for x, _y in loader)
    elif kind == "decode-only":
        # Variable-size images: read the batches directly (no dense tensor for the iterator).
        pipe = sluice_pipeline(kind, data, batch_size, threads, seed)
        pipe.build()
        built["pipe"] = pipe
        iters = -(-pipe.epoch_size("Reader") // batch_size)
        while True:
            yield (len(pipe.run()[0]) for _ in range(iters))
    else:
        from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy

        built["pipe"] = sluice_pipeline(kind, data, batch_size, threads, seed)
        it = DALIClassificationIterator(built["pipe"], reader_name="Reader",
                                        last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
        while True:
            yield (b[0]["data"].shape[0] for b in it)
