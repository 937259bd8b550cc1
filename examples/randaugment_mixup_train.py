#!/usr/bin/env python3
"""Trains a small torchvision model for a few steps with a modern recipe's input pipeline, all of it
in Sluice: random-resized crop, flip, RandAugment (n=2, m=9), normalization, and MixUp of each
sample with a partner from the same batch (labels mixed as one-hot targets).

    PYTHONPATH=python .venv/bin/python examples/randaugment_mixup_train.py [DATA_DIR] --steps 5

DATA_DIR holds one subfolder of JPEGs per class (default: $SLUICE_DATA/train where SLUICE_DATA is set,
else sample_data/train in this checkout, which `make demo` builds). It is written as a DALI user
writes it: only the imports differ (`nvidia.dali` -> `sluice`).
"""
import argparse
import os
import time

import torch
import torchvision

from sluice import fn, types
from sluice.auto_aug import rand_augment
from sluice.pipeline import pipeline_def
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy, shard_info

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def(enable_conditionals=True)
def train_pipeline(data_dir, shard_id, num_shards, num_classes, crop=224, n=2, m=9, mixup_alpha=0.2):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, shard_id=shard_id,
                                    num_shards=num_shards, pad_last_batch=True, name="Reader")
    images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB, random_area=[0.08, 1.0],
                                           random_aspect_ratio=[3 / 4, 4 / 3])
    images = fn.resize(images, resize_x=crop, resize_y=crop)
    images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
    images = rand_augment.rand_augment(images, n=n, m=m)  # one operation per sample, drawn per sample
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", mean=MEAN, std=STD)
    # MixUp: each sample with a partner from the same batch, weight lambda ~ Beta(alpha, alpha).
    partner = fn.batch_permutation()
    lam = fn.random.beta(alpha=mixup_alpha, beta=mixup_alpha)
    targets = fn.one_hot(labels, num_classes=num_classes)
    images = images * lam + fn.permute_batch(images, indices=partner) * (1 - lam)
    targets = targets * lam + fn.permute_batch(targets, indices=partner) * (1 - lam)
    return images, targets


def main():
    data_root = os.environ.get("SLUICE_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                              "sample_data")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", nargs="?", default=os.path.normpath(os.path.join(data_root, "train")))
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5, help="training steps (0: one whole epoch)")
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--n", type=int, default=2, help="RandAugment: operations per sample")
    parser.add_argument("--m", type=int, default=9, help="RandAugment: magnitude bin (0..30)")
    parser.add_argument("--mixup-alpha", type=float, default=0.2)
    parser.add_argument("--arch", default="resnet18", help="a torchvision.models constructor")
    args = parser.parse_args()

    if not os.path.isdir(args.data_dir):
        parser.error(f"no dataset folder at {args.data_dir}: build one with scripts/make_sample_data.sh, or "
                     f"pass a folder with one subfolder of images per class")
    classes = sorted(d for d in os.listdir(args.data_dir) if os.path.isdir(os.path.join(args.data_dir, d)))
    shard_id, num_shards = shard_info()
    pipe = train_pipeline(args.data_dir, shard_id, num_shards, len(classes), crop=args.crop, n=args.n, m=args.m,
                          mixup_alpha=args.mixup_alpha, batch_size=args.batch_size, num_threads=args.threads,
                          device_id=None, seed=1234 + shard_id)
    loader = DALIGenericIterator(pipe, ["images", "targets"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    model = getattr(torchvision.models, args.arch)(num_classes=len(classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    model.train()

    steps = args.steps or len(loader)
    print(f"{len(classes)} classes, {pipe.epoch_size('Reader')} images, RandAugment n={args.n} m={args.m}, "
          f"MixUp alpha={args.mixup_alpha}; training {steps} steps of {args.batch_size}")
    seen, step, start = 0, 0, time.perf_counter()
    while step < steps:
        for batch in loader:
            images, targets = batch[0]["images"], batch[0]["targets"]  # (N, 3, crop, crop), (N, classes)
            # Soft-target cross-entropy: the mixed one-hot labels are the targets.
            loss = torch.sum(-targets * torch.log_softmax(model(images), dim=1), dim=1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += images.shape[0]
            step += 1
            print(f"step {step}/{steps}: loss {loss.item():.3f}, {seen / (time.perf_counter() - start):.1f} img/s")
            if step == steps:
                break
    stats = pipe.executor_statistics()
    busiest = sorted(stats, key=lambda name: -stats[name]["total_time_ms"])[:3]
    print("done: " + f"{seen} images; busiest operators " +
          ", ".join(f"{name} ({stats[name]['mean_batch_ms']:.1f} ms/batch)" for name in busiest))


if __name__ == "__main__":
    main()
