#!/usr/bin/env python3
"""A torchvision ResNet-18 trained with Ray Train's TorchTrainer, fed by Sluice pipelines on Ray Data actors.

The data are `sluice prepare` shards (DIR/shard-NNNNNN.tar with .idx; .cls holds the class in ASCII).
Ray Data runs one Sluice pipeline per shard on an actor pool (sluice.ray.from_pipeline: decode,
random crop, resize, flip; uint8 HWC out) on whatever CPUs the cluster has; each trainer gets its
part with ray.train.get_dataset_shard("train").iter_torch_batches(...) and normalises on its own
device (sluice.ray.normalize: a quarter of the float bytes cross the network and the bus).

One machine (2 CPU workers, 1 data actor):

    sluice prepare sample_data/train -o /tmp/prepared
    PYTHONPATH=python python examples/ray_train.py --shards /tmp/prepared --workers 2 --cpus-per-worker 0.5 \
        --steps 10   # 2 trainers of half a CPU + 1 data actor: fits 2 CPUs

A cluster: `ray start --head` on one node, `ray start --address=HEAD:6379` on the others (CPU nodes
and GPU nodes alike), the shards on storage every node reads at the same path, then on the head:

    python examples/ray_train.py --address auto --shards /data/prepared --workers 8 --use-gpu \\
        --actors 32 --cpus-per-actor 4 --batch-size 256 --image-size 224 --steps 1000

Prints one line per step of rank 0 (loss, images/s) and at the end the loss of every step and the
data actors' statistics. --result FILE writes them as JSON.
"""
import argparse
import glob
import json
import os
import pathlib
import sys
import time

try:
    import sluice
except ImportError:  # a source checkout without PYTHONPATH=python
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
    import sluice
import sluice.ray
from sluice import fn, types

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def shard_pipeline(shard, seed, batch_size=64, image_size=224, threads=1):
    """The ImageNet training augmentation of one shard, uint8 HWC out (normalised on the trainer)."""
    pipe = sluice.Pipeline(batch_size=batch_size, num_threads=threads, seed=seed, prefetch_queue_depth=2)
    with pipe:
        index = shard[:-4] + ".idx"
        jpegs, labels = fn.readers.webdataset(paths=[shard], index_paths=[index] if os.path.exists(index) else [],
                                              ext=["jpg", "cls"], missing_component_behavior="error",
                                              random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB, random_area=[0.35, 1.0],
                                               random_aspect_ratio=[3 / 4, 4 / 3])
        images = fn.resize(images, resize_x=image_size, resize_y=image_size)
        images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
        pipe.set_outputs(images, labels)
    return pipe


def ascii_labels(columns):
    columns["label"] = sluice.ray.ascii_to_int(columns["label"])
    return columns


def train_loop(config):
    """Ray Train's per-worker loop: each worker takes its part of the dataset, DDP over them."""
    import ray.train
    import ray.train.torch
    import torch
    import torch.nn.functional as F
    import torchvision

    torch.manual_seed(config["seed"])
    if config["torch_threads"]:
        torch.set_num_threads(config["torch_threads"])
    model = torchvision.models.resnet18(num_classes=config["num_classes"], zero_init_residual=True)
    torch.nn.init.zeros_(model.fc.weight)  # the first loss is exactly ln(classes): a stable start
    torch.nn.init.zeros_(model.fc.bias)
    model = ray.train.torch.prepare_model(model)
    device = ray.train.torch.get_device()
    optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9, weight_decay=1e-4)
    data = ray.train.get_dataset_shard("train")
    rank = ray.train.get_context().get_world_rank()
    losses, step, images, start = [], 0, 0, time.perf_counter()
    model.train()
    while step < config["steps"]:
        # One pass covers the Sluice dataset's epochs (sized for --steps); should drop_last leave the
        # loop short, another pass replays them from the start (same seeds, so the same order).
        for batch in data.iter_torch_batches(batch_size=config["batch_size"], drop_last=True):
            x = sluice.ray.normalize(batch["image"], MEAN, STD, layout="HWC", device=device)
            y = batch["label"].to(device)
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(loss))
            images += len(y)
            step += 1
            if rank == 0:
                print(f"step {step}: loss {losses[-1]:.4f}, {images / (time.perf_counter() - start):.1f} "
                      f"images/s on rank 0", flush=True)
            if step >= config["steps"]:
                break
    # The data actors' figures, read here on the trainer (sluice.ray's statistics are cluster-wide).
    data_stats = sluice.ray.statistics(config["stats_name"])["total"]
    # Train V2 keeps the metrics of reports that carry a checkpoint: a small one with the losses.
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "losses.json"), "w") as f:
            json.dump(losses, f)
        checkpoint = ray.train.Checkpoint.from_directory(d) if rank == 0 else None
        ray.train.report({"losses": losses, "steps": step, "images": images,
                          "data_images_seen_by_trainer": data_stats["images"]}, checkpoint=checkpoint)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shards", required=True, help="folder of `sluice prepare` shards (shard-*.tar, .idx)")
    ap.add_argument("--address", default=None, help="Ray cluster address ('auto': the running cluster); "
                                                     "default: start a local one")
    ap.add_argument("--workers", type=int, default=2, help="Ray Train workers (trainers)")
    ap.add_argument("--use-gpu", action="store_true", help="one GPU per trainer")
    ap.add_argument("--cpus-per-worker", type=float, default=1.0, help="CPUs Ray reserves per trainer")
    ap.add_argument("--actors", type=int, default=1, help="Sluice data actors")
    ap.add_argument("--cpus-per-actor", type=float, default=1.0,
                    help="CPUs per data actor (the pipeline runs max(1, int(this)) threads)")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=16, help="per trainer")
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--num-classes", type=int, default=0, help="default: the largest .cls value + 1")
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--epochs", type=int, default=0,
                    help="Sluice epochs in the dataset (default: enough for --steps; the loop stops at --steps)")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local cluster (without --address)")
    ap.add_argument("--object-store-mb", type=int, default=None, help="object store of the local cluster")
    ap.add_argument("--storage", default=None, help="Ray Train's storage_path (default: a temporary folder)")
    ap.add_argument("--result", help="write the losses and statistics as JSON")
    args = ap.parse_args(argv)

    import tempfile
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    tars = sorted(glob.glob(os.path.join(args.shards, "*.tar")))
    if not tars:
        ap.error(f"no .tar shards in {args.shards}: make them with `sluice prepare CLASS_FOLDERS -o DIR`")
    num_classes = args.num_classes or 1 + max(_labels_in(t) for t in tars)
    if args.address:
        ray.init(address=args.address)
    elif not ray.is_initialized():
        ray.init(num_cpus=args.num_cpus, include_dashboard=False,
                 object_store_memory=args.object_store_mb * 2**20 if args.object_store_mb else None)
    samples = sum(_samples_in(t) for t in tars)
    epochs = args.epochs or -(-args.steps * args.batch_size * args.workers // samples)  # Ray runs ahead otherwise
    threads = max(1, int(args.cpus_per_actor))
    pipeline_fn = _partial(shard_pipeline, batch_size=args.batch_size, image_size=args.image_size, threads=threads)
    ds = sluice.ray.from_pipeline(pipeline_fn, tars, output_names=["image", "label"], actors=args.actors,
                                  cpus_per_actor=args.cpus_per_actor, seed=args.seed, epochs=epochs,
                                  postprocess=ascii_labels, stats_name="ray_train")
    trainer = TorchTrainer(
        train_loop,
        train_loop_config=dict(steps=args.steps, batch_size=args.batch_size, lr=args.lr, seed=args.seed,
                               num_classes=num_classes, torch_threads=max(1, int(args.cpus_per_worker)),
                               stats_name="ray_train"),
        scaling_config=ScalingConfig(num_workers=args.workers, use_gpu=args.use_gpu,
                                     resources_per_worker={"CPU": args.cpus_per_worker}),
        run_config=RunConfig(storage_path=args.storage or tempfile.mkdtemp(prefix="sluice_ray_train_"),
                             name="sluice_ray_train"),
        datasets={"train": ds},
    )
    start = time.perf_counter()
    result = trainer.fit()
    wall = time.perf_counter() - start
    losses = result.metrics["losses"]
    stats = sluice.ray.statistics("ray_train")
    print(f"{len(losses)} steps in {wall:.1f} s; loss {losses[0]:.4f} -> {losses[-1]:.4f}")
    print(f"data actors: {stats['total']['images']} images, "
          + ", ".join(f"{s['images_per_s']:.0f} images/s" for s in stats["actors"].values())
          + f"; Ray {stats['total']['ray_ms_per_batch']:.2f} ms per batch (producer side)")
    if args.result:
        with open(args.result, "w") as f:
            json.dump({"losses": losses, "wall_s": wall, "statistics": stats,
                       "data_images_seen_by_trainer": result.metrics["data_images_seen_by_trainer"]}, f)
    return 0


def _partial(f, **kw):
    import functools
    return functools.partial(f, **kw)


def _samples_in(tar):
    """Samples in a shard: its .idx's first line ("v1.2 <samples>"), else a scan of the tar."""
    idx = tar[:-4] + ".idx"
    if os.path.exists(idx):
        with open(idx) as f:
            return int(f.readline().split()[1])
    import tarfile
    with tarfile.open(tar) as t:
        return sum(1 for m in t.getmembers() if m.name.endswith(".cls"))


def _labels_in(tar):
    import tarfile
    with tarfile.open(tar) as t:
        return max(int(t.extractfile(m).read()) for m in t.getmembers() if m.name.endswith(".cls"))


if __name__ == "__main__":
    sys.exit(main())
