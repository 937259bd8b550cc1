#!/usr/bin/env python3
"""Data-parallel training of a torchvision ResNet-18 with torch.distributed, fed by Sluice.

One process per GPU (or per CPU share), launched by torchrun, which sets RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT (env:// initialisation):

    torchrun --nproc_per_node=2 examples/ddp_train.py --data sample_data --steps 20
    python -m torch.distributed.run --nproc_per_node=2 examples/ddp_train.py --steps 20

(torch 1.13 on Python 3.11, as in Debian 12, has a launcher bug: with the default --redirects and
--tee it fails with "AttributeError: 'NoneType' object has no attribute 'get'"; add
`--redirects 1 --tee 1`, which writes each rank's stdout under --log_dir and echoes it.)
It runs unchanged across machines, e.g. on each of two nodes:

    torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=HOST:29400 \\
        --rdzv_id=job1 examples/ddp_train.py --data /data/imagenet --steps 1000

Each rank builds its own Sluice pipeline reading shard `rank` of `world_size`
(sluice.plugin.pytorch.shard_info(), from torch.distributed), with pad_last_batch=True so that every
rank runs the same number of steps per epoch, and the iterator's reader_name and
LastBatchPolicy.PARTIAL, so the padding never reaches the model. The model is wrapped in
torch.nn.parallel.DistributedDataParallel: gloo on CPU, NCCL when CUDA is available (then Sluice
decodes on the GPU where it was built with CUDA).

--data is a dataset folder as scripts/make_sample_data.sh writes it (train/<class>/*.jpg and
wds/*.tar), or a folder of class subfolders; the default is $SLUICE_DATA, else the checkout's
sample_data/ (`make demo` builds it). --reader webdataset reads wds/*.tar (with their .idx), whose
.cls members hold the class index in ASCII.

--log-samples FILE writes, per rank, FILE.rank<R> with one JSON line per step: epoch, step, the
global loss and the paths (relative to the class root) of the samples this rank trained on.
"""
import argparse
import glob
import json
import os
import pathlib
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
import torchvision

try:
    import sluice
except ImportError:  # a source checkout without PYTHONPATH=python
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
    import sluice
from sluice import fn, pipeline_def, types
from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy, shard_info

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".pnm", ".ppm", ".pgm", ".pbm", ".jp2",
                    ".webp")


def default_data():
    """$SLUICE_DATA, else sample_data/ in the checkout this example is in."""
    return os.environ.get("SLUICE_DATA") or str(pathlib.Path(__file__).resolve().parents[1] / "sample_data")


def class_root(data):
    train = os.path.join(data, "train")
    return train if os.path.isdir(train) else data


def list_files(root):
    """(relative path, class) in readers.file's file_root order: class folders and files in byte order."""
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    files = []
    for label, c in enumerate(classes):
        for name in sorted(os.listdir(os.path.join(root, c))):
            if name.lower().endswith(IMAGE_EXTENSIONS) and os.path.isfile(os.path.join(root, c, name)):
                files.append((f"{c}/{name}", label))
    return classes, files


@pipeline_def
def train_pipeline(reader_kwargs, image_size, decoder_device):
    reader = fn.readers.webdataset if "paths" in reader_kwargs else fn.readers.file
    jpegs, labels = reader(random_shuffle=True, pad_last_batch=True, name="Reader", **reader_kwargs)
    images = fn.decoders.image_random_crop(jpegs, device=decoder_device, output_type=types.RGB,
                                           random_area=[0.35, 1.0], random_aspect_ratio=[3 / 4, 4 / 3])
    images = fn.resize(images, resize_x=image_size, resize_y=image_size)
    images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(image_size, image_size),
                                      mean=MEAN, std=STD, mirror=fn.random.coin_flip(probability=0.5))
    return images, labels


def ascii_labels(raw):
    """The .cls members' ASCII class indices, (N, digits) uint8, as (N,) int64."""
    digits = raw.long() - ord("0")
    if digits.dim() == 1:
        digits = digits[:, None]
    weights = 10 ** torch.arange(digits.shape[1] - 1, -1, -1)
    return (digits * weights).sum(dim=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=default_data(),
                    help="dataset folder (train/<class>/ and wds/), or a folder of class folders "
                         "(default: $SLUICE_DATA, else sample_data/ in the checkout)")
    ap.add_argument("--reader", choices=["file", "webdataset"], default="file")
    ap.add_argument("--steps", type=int, default=20, help="training steps (every rank runs the same number)")
    ap.add_argument("--batch-size", type=int, default=16, help="per rank")
    ap.add_argument("--image-size", type=int, default=64, help="side of the square training crops")
    ap.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd", help="SGD with momentum 0.9, or AdamW")
    ap.add_argument("--lr", type=float, default=0.005, help="learning rate")
    ap.add_argument("--threads", type=int, default=0,
                    help="Sluice worker threads per rank (default: the CPUs divided among the local ranks)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--num-classes", type=int, default=0,
                    help="with --reader webdataset (default: the class folders of DATA/train)")
    ap.add_argument("--log-samples", metavar="FILE",
                    help="write FILE.rank<R>: per step, the paths of the samples rank R trained on (file reader)")
    args = ap.parse_args(argv)

    cuda = torch.cuda.is_available()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    if "RANK" in os.environ:  # under torchrun: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT (env://)
        if cuda:
            torch.cuda.set_device(local_rank)
        dist.init_process_group("nccl" if cuda else "gloo", init_method="env://")
    rank, world_size = shard_info()
    device = torch.device("cuda", local_rank) if cuda else torch.device("cpu")
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    cpus = max(1, (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
               // local_world)
    if not cuda:
        torch.set_num_threads(cpus)
    torch.manual_seed(args.seed)  # the same initial weights everywhere (DDP also broadcasts rank 0's)

    if not os.path.isdir(args.data):
        ap.error(f"no dataset folder at {args.data}: build one with `make demo` or scripts/make_sample_data.sh DIR, "
                 f"or set SLUICE_DATA")
    names = None
    if args.reader == "webdataset":
        wds = os.path.join(args.data, "wds") if os.path.isdir(os.path.join(args.data, "wds")) else args.data
        tars = sorted(glob.glob(os.path.join(wds, "*.tar")))
        if not tars:
            ap.error(f"no .tar shards in {wds}")
        if args.log_samples:
            ap.error("--log-samples needs --reader file (the paths come from its file list)")
        idx = [t[:-4] + ".idx" for t in tars]
        reader_kwargs = dict(paths=tars, ext=["jpg", "cls"], missing_component_behavior="error")
        if all(os.path.exists(i) for i in idx):
            reader_kwargs["index_paths"] = idx
        class_of = None
        num_classes = args.num_classes
        if not num_classes and os.path.isdir(os.path.join(args.data, "train")):
            num_classes = len(list_files(os.path.join(args.data, "train"))[0])
        if not num_classes:
            ap.error("pass --num-classes (the webdataset shards' class count)")
    else:
        root = class_root(args.data)
        classes, files = list_files(root)
        if not files:
            ap.error(f"no images in class folders under {root}")
        num_classes = len(classes)
        # The label each sample carries is its index in the file list: the class is looked up from it,
        # and --log-samples can name every sample a rank saw.
        names = [f for f, _ in files]
        class_of = torch.tensor([c for _, c in files], dtype=torch.long)
        list_fd, list_path = tempfile.mkstemp(prefix=f"sluice_ddp_rank{rank}_", suffix=".txt")
        with os.fdopen(list_fd, "w") as f:
            f.writelines(f"{name} {i}\n" for i, name in enumerate(names))
        reader_kwargs = dict(file_root=root, file_list=list_path)
    reader_kwargs.update(shard_id=rank, num_shards=world_size)

    sluice_gpu = cuda and sluice.cuda_available()
    pipe = train_pipeline(reader_kwargs, args.image_size, "mixed" if sluice_gpu else "cpu",
                          batch_size=args.batch_size, num_threads=args.threads or cpus,
                          device_id=local_rank if sluice_gpu else None, seed=args.seed + rank)
    loader = DALIGenericIterator(pipe, ["data", "label"], reader_name="Reader",
                                 last_batch_policy=LastBatchPolicy.PARTIAL, auto_reset=True)
    if args.reader == "file":
        os.unlink(list_path)  # read at build

    # Zero-initialised residual branches (each block starts as the identity, Goyal et al. 2017) and
    # classifier (the first loss is exactly ln(classes)): a stable start for a short run from scratch.
    model = torchvision.models.resnet18(num_classes=num_classes, zero_init_residual=True)
    torch.nn.init.zeros_(model.fc.weight)
    torch.nn.init.zeros_(model.fc.bias)
    model = model.to(device)
    if dist.is_initialized():
        model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if cuda else None)
    if args.optimizer == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    model.train()

    steps_per_epoch = len(loader)
    if rank == 0:
        print(f"{world_size} ranks ({'nccl' if cuda else 'gloo' if dist.is_initialized() else 'no'} backend, "
              f"{device.type}), {num_classes} classes, {pipe.epoch_size('Reader')} samples, "
              f"{steps_per_epoch} steps per epoch of {args.batch_size} per rank", flush=True)
    log = open(f"{args.log_samples}.rank{rank}", "w") if args.log_samples else None
    step, epoch, seen, start = 0, 0, 0, time.perf_counter()
    while step < args.steps:
        for batch in loader:
            images = batch[0]["data"].to(device, non_blocking=True)
            raw = batch[0]["label"]
            if class_of is not None:
                index = raw.reshape(-1).long()
                labels = class_of[index]
            else:
                labels = ascii_labels(raw)
            loss = F.cross_entropy(model(images), labels.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            seen += images.shape[0]
            global_loss = loss.detach().clone()
            if dist.is_initialized():
                dist.all_reduce(global_loss)
                global_loss /= world_size
            if log:
                log.write(json.dumps({"epoch": epoch, "step": step, "loss": global_loss.item(),
                                      "samples": [names[i] for i in index.tolist()]}) + "\n")
            if rank == 0:
                rate = seen * world_size / (time.perf_counter() - start)
                print(f"epoch {epoch} step {step}/{args.steps}: loss {global_loss.item():.4f} "
                      f"({rate:.1f} img/s over {world_size} ranks)", flush=True)
            if step == args.steps:
                break
        else:
            epoch += 1
    if log:
        log.close()
    print(f"rank {rank}/{world_size}: finished {step} steps, {seen} samples", flush=True)
    if dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
