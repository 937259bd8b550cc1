"""Sluice on Ray Data (sluice.ray) against Sluice's local PyTorch iterator, the same pipeline, in one run;
then 1 against 2 Ray actors.

    PYTHONPATH=python .venv/bin/python benchmarks/ray_overhead.py --prepared /tmp/prepared \\
        [--threads 1] [--batch 64] [--epochs 2] [--actors 1 2] [--repeat 1] [--json FILE]

--prepared: `sluice prepare` shards (shard-*.tar + .idx), e.g. `sluice prepare sample_data/train -o
/tmp/prepared --shard-size 250` (8 shards of the 2,000 sample photographs).

The pipeline (both sides): readers.webdataset (shuffled) -> decoders.image_random_crop -> resize 224x224 ->
flip, uint8 HWC out, batch --batch, --threads threads. Local: one pipeline over all shards through
sluice.plugin.pytorch.DALIGenericIterator. Ray: sluice.ray.from_pipeline, one pipeline per shard on
an actor pool of `actors` actors of --threads CPUs each, read by the driver with
iter_torch_batches(batch_size=--batch) (the same torch uint8 batches the local iterator gives).
Each contender runs --epochs epochs; images/s counts the images after the first batch, over the
time from the first batch to the last (start-up — building pipelines, starting actors — excluded).
The Ray cluster is local: ray.init(num_cpus=max(actors) * threads + 1) (one CPU for the driver).
Reported too: Ray's producer-side time per batch (sluice.ray.statistics: from handing a batch to Ray
to Ray giving control back) and the bytes per batch (uint8 against float32).
"""
import argparse
import functools
import glob
import json
import os
import sys
import time

import numpy as np


def pipeline(paths, seed, batch=64, threads=1):
    import sluice
    from sluice import fn, types
    if isinstance(paths, str):
        paths = [paths]
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=seed, prefetch_queue_depth=2)
    with pipe:
        jpegs, labels = fn.readers.webdataset(paths=paths, index_paths=[p[:-4] + ".idx" for p in paths],
                                              ext=["jpg", "cls"], random_shuffle=True, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB)
        images = fn.resize(images, resize_x=224, resize_y=224)
        images = fn.flip(images, horizontal=fn.random.coin_flip(probability=0.5))
        pipe.set_outputs(images, labels)
    return pipe


def labels_to_int(columns):
    import sluice.ray
    columns["label"] = sluice.ray.ascii_to_int(columns["label"])
    return columns


def run_local(tars, batch, threads, epochs):
    from sluice.plugin.pytorch import DALIGenericIterator, LastBatchPolicy
    pipe = pipeline(tars, seed=1, batch=batch, threads=threads)
    it = DALIGenericIterator(pipe, ["image", "label"], reader_name="Reader", last_batch_policy=LastBatchPolicy.PARTIAL,
                             auto_reset=True)
    result = _timed(b[0]["image"] for _ in range(epochs) for b in it)
    # CPU per image: this process (the pipeline's threads and the iterator), build excluded
    result["cpu_ms_per_image"] = 1e3 * result.pop("cpu_s") / result["images"]
    return result


def run_ray(tars, batch, threads, epochs, actors, shards_per_actor):
    import sluice.ray
    name = f"bench{actors}_{time.time_ns()}"
    ds = sluice.ray.from_pipeline(functools.partial(pipeline, batch=batch, threads=threads), tars,
                                  output_names=["image", "label"], actors=actors, cpus_per_actor=threads, seed=1,
                                  epochs=epochs, postprocess=labels_to_int, stats_name=name,
                                  shards_per_actor=shards_per_actor)
    result = _timed(b["image"] for b in ds.iter_torch_batches(batch_size=batch))
    stats = sluice.ray.statistics(name)
    # CPU per image: the actors' processes (whole run, start-up included) + the driver's consumption
    result["cpu_ms_per_image"] = 1e3 * (stats["total"]["cpu_s"] + result.pop("cpu_s")) / result["images"]
    result["ray_ms_per_batch"] = stats["total"]["ray_ms_per_batch"]
    result["actor_images_per_s"] = [round(s["images_per_s"], 1) for s in stats["actors"].values()]
    return result


def _timed(images_iter):
    cpu0 = time.process_time()
    n = count = 0
    first = None
    shape = None
    for images in images_iter:
        if first is None:
            first = time.perf_counter()
            shape = tuple(images.shape)
        else:
            n += images.shape[0]
        count += images.shape[0]
        assert images.dtype.__str__() == "torch.uint8"
    wall = time.perf_counter() - first
    return {"images": count, "timed_images": n, "timed_s": wall, "images_per_s": n / wall, "batch_shape": shape,
            "cpu_s": time.process_time() - cpu0}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--prepared", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--actors", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--shards-per-actor", type=int, nargs="+", default=[1, 2],
                    help="from_pipeline's shards_per_actor (1: one shard after the other; 2: the next shard's "
                         "pipeline starts while the current one finishes); each with every --actors")
    ap.add_argument("--repeat", type=int, default=1, help="rounds of (local, ray x actors...), alternating")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    tars = sorted(glob.glob(os.path.join(args.prepared, "*.tar")))
    if not tars:
        ap.error(f"no shards in {args.prepared}")

    import ray
    ray.init(num_cpus=max(args.actors) * args.threads + 1, object_store_memory=512 * 2**20, include_dashboard=False,
             log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    rounds = []
    for r in range(args.repeat):
        row = {"local": run_local(tars, args.batch, args.threads, args.epochs)}
        for a in args.actors:
            for k in args.shards_per_actor:
                row[f"ray_{a}x{k}"] = run_ray(tars, args.batch, args.threads, args.epochs, a, k)
        rounds.append(row)
        print(json.dumps({"round": r, **{k: {kk: vv for kk, vv in v.items() if kk != "batch_shape"}
                                           for k, v in row.items()}}), flush=True)
    ray.shutdown()

    def med(key, field="images_per_s"):
        return float(np.median([row[key][field] for row in rounds]))
    local = med("local")
    b, h, w, c = rounds[0]["local"]["batch_shape"]
    summary = {"threads": args.threads, "batch": args.batch, "epochs": args.epochs, "shards": len(tars),
               "local_images_per_s": round(local, 1),
               "uint8_bytes_per_batch": b * h * w * c, "float32_bytes_per_batch": 4 * b * h * w * c}
    summary["local_cpu_ms_per_image"] = round(med("local", "cpu_ms_per_image"), 3)
    for a in args.actors:
        for k in args.shards_per_actor:
            key = f"ray_{a}x{k}"
            summary[f"{key}_images_per_s"] = round(med(key), 1)
            summary[f"{key}_vs_local"] = round(med(key) / local, 3)
            summary[f"{key}_cpu_ms_per_image"] = round(med(key, "cpu_ms_per_image"), 3)
            summary[f"{key}_ms_per_batch_producer_side"] = round(med(key, "ray_ms_per_batch"), 3)
    if len(args.actors) > 1:
        for k in args.shards_per_actor:
            summary[f"scaling_x{k}"] = round(med(f"ray_{args.actors[-1]}x{k}") / med(f"ray_{args.actors[0]}x{k}"), 3)
    summary["load_average"] = os.getloadavg()
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"summary": summary, "rounds": rounds}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
