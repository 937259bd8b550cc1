#!/usr/bin/env python3
"""Trains a small torchvision model for a few steps on an ImageNet-style folder, with a Sluice
pipeline as the input: the classic DALI training pipeline, with only the imports changed.

    PYTHONPATH=python .venv/bin/python examples/pytorch_imagenet.py [DATA_DIR] --steps 5

DATA_DIR holds one subfolder of JPEGs per class (default: $SLUICE_DATA/train where SLUICE_DATA is set,
else sample_data/train in this checkout, which `make demo` builds).
Under torchrun (or with RANK/WORLD_SIZE set) each process reads its own shard.
"""
import argparse
import os
import time

import torch
import torchvision

import sluice
from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIClassificationIterator, LastBatchPolicy, shard_info

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


@pipeline_def
def train_pipeline(data_dir, shard_id, num_shards, crop=224):
    jpegs, labels = fn.readers.file(file_root=data_dir, random_shuffle=True, shard_id=shard_id,
                                    num_shards=num_shards, pad_last_batch=True, name="Reader")
    # DALI code says device="mixed" (decode on the GPU); Sluice decodes on the CPU without CUDA.
    decoder_device = "mixed" if sluice.cuda_available() else "cpu"
    images = fn.decoders.image_random_crop(jpegs, device=decoder_device, output_type=types.RGB,
                                           random_area=[0.08, 1.0], random_aspect_ratio=[3 / 4, 4 / 3])
    images = fn.resize(images, resize_x=crop, resize_y=crop, interp_type=types.INTERP_TRIANGULAR)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(crop, crop),
                                      mean=MEAN, std=STD, mirror=fn.random.coin_flip(probability=0.5))
    return images, labels


def main():
    data_root = os.environ.get("SLUICE_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                              "sample_data")
    default_data = os.path.normpath(os.path.join(data_root, "train"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", nargs="?", default=default_data)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5, help="training steps (0: one whole epoch)")
    parser.add_argument("--crop", type=int, default=224)
    parser.add_argument("--arch", default="resnet18", help="a torchvision.models constructor")
    args = parser.parse_args()

    if not os.path.isdir(args.data_dir):
        parser.error(f"no dataset folder at {args.data_dir}: build one with scripts/make_sample_data.sh, or "
                     f"pass a folder with one subfolder of images per class")
    classes = sorted(d for d in os.listdir(args.data_dir) if os.path.isdir(os.path.join(args.data_dir, d)))
    shard_id, num_shards = shard_info()

    pipe = train_pipeline(args.data_dir, shard_id, num_shards, crop=args.crop, batch_size=args.batch_size,
                          num_threads=args.threads, device_id=0, seed=1234 + shard_id)
    loader = DALIClassificationIterator(pipe, reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                                        auto_reset=True)
    model = getattr(torchvision.models, args.arch)(num_classes=len(classes))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    criterion = torch.nn.CrossEntropyLoss()
    model.train()

    steps = args.steps or len(loader)
    print(f"{len(classes)} classes, {pipe.epoch_size('Reader')} images, shard {shard_id}/{num_shards}, "
          f"{len(loader)} steps per epoch; training {steps} steps of {args.batch_size}")
    seen, start = 0, time.perf_counter()
    step = 0
    while step < steps:
        for batch in loader:
            images = batch[0]["data"]                      # (N, 3, crop, crop) float32, NCHW
            labels = batch[0]["label"].squeeze(-1).long()  # (N,)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += images.shape[0]
            step += 1
            print(f"step {step}/{steps}: loss {loss.item():.3f}, {seen / (time.perf_counter() - start):.1f} img/s")
            if step == steps:
                break
    stats = pipe.executor_statistics()
    slowest = max(stats, key=lambda name: stats[name]["total_time_ms"])
    print(f"done: {seen} images; busiest operator {slowest} ({stats[slowest]['mean_batch_ms']:.1f} ms/batch)")


if __name__ == "__main__":
    main()
