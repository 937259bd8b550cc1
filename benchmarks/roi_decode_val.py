"""The validation pipeline (sluice bench's "val": decoders.image -> resize(resize_shorter=256) ->
crop_mirror_normalize(crop 224, float, CHW)) with ROI decode on and off, side by side in one run.

    PYTHONPATH=python .venv/bin/python benchmarks/roi_decode_val.py [--data sample_data] [--threads 2]
        [--batch 64] [--repeat 3] [--scaled-decode]

Each repeat runs one epoch of the data (readers.file, in order) through each pipeline, the two
alternating; reported: per pipeline the median over repeats of the wall time per batch and of the
decoder's, resize's and crop_mirror_normalize's mean time per batch (executor_statistics), the
process's CPU time per batch (robust to other load on a shared machine), and the ratios off / on.
The first batch of each run is taken before timing (the prefetch queue fills). Also checks that
both pipelines gave the same bytes. sluice bench's val pipeline leaves scaled_decode on; for
resize_shorter=256 it never engages on sample_data (photos of at most 500 pixels: 1/2 scale would
go below 256), so both settings measure the same work.
"""
import argparse
import glob
import math
import os
import statistics
import time

import numpy as np

import sluice
from sluice import fn, types

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def make(files, roi, scaled, batch, threads):
    # fuse_operators=False: this reports resize and crop_mirror_normalize separately.
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=0, device_id=None, fuse_operators=False)
    with pipe:
        jpegs, labels = fn.readers.file(files=files, name="Reader")
        images = fn.decoders.image(jpegs, output_type=types.RGB, roi_decode=roi, scaled_decode=scaled, name="decode")
        images = fn.resize(images, resize_shorter=256, name="resize")
        images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224),
                                          mean=MEAN, std=STD, name="cmn")
        pipe.set_outputs(images, labels)
    pipe.build()
    return pipe


def epoch(pipe, n_batches):
    """Wall and CPU (this process, all threads) ms per batch over an epoch, a checksum of the outputs,
    and the operators' mean ms. CPU time is what the work costs whatever else runs on the machine."""
    digest = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n_batches):
        out = pipe.run()
        arr = np.asarray(out[0].as_array())
        digest ^= hash(arr.tobytes())
    ms = (time.perf_counter() - t0) * 1000 / n_batches
    cpu_ms = (time.process_time() - c0) * 1000 / n_batches
    stats = pipe.executor_statistics()
    return ms, cpu_ms, digest, {k: stats[k]["mean_batch_ms"] for k in ("decode", "resize", "cmn")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap.add_argument("--data", default=os.environ.get("SLUICE_DATA", os.path.join(root, "sample_data")))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scaled-decode", action="store_true", help="scaled_decode on in both pipelines")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.data, "train", "*", "*.jpg")))
    if not files:
        raise SystemExit(f"no JPEGs under {args.data}/train (make demo builds sample_data)")
    n_batches = math.ceil(len(files) / args.batch)
    results = {True: [], False: []}
    digests = {}
    for _ in range(args.repeat):
        for roi in (True, False):
            pipe = make(files, roi, args.scaled_decode, args.batch, args.threads)
            pipe.run()  # warm-up: fills the prefetch queue
            ms, cpu_ms, digest, ops = epoch(pipe, n_batches - 1)
            results[roi].append((ms, ops, cpu_ms))
            digests.setdefault(roi, digest)
            del pipe
    same = digests[True] == digests[False]
    print(f"{len(files)} images, batch {args.batch}, {args.threads} threads, scaled_decode="
          f"{args.scaled_decode}, {args.repeat} repeats (medians); outputs identical: {same}")
    med, cpu = {}, {}
    for roi in (False, True):
        ms = statistics.median(r[0] for r in results[roi])
        cpu[roi] = statistics.median(r[2] for r in results[roi])
        ops = {k: statistics.median(r[1][k] for r in results[roi]) for k in ("decode", "resize", "cmn")}
        med[roi] = ms
        print(f"  roi_decode={str(roi):5}  {ms:7.1f} ms/batch wall ({args.batch * 1000 / ms:5.0f} img/s), "
              f"{cpu[roi]:7.1f} ms/batch CPU   " + "  ".join(f"{k} {v:6.1f} ms" for k, v in ops.items()))
    print(f"  speed-up (off / on): wall {med[False] / med[True]:.2f}x, CPU {cpu[False] / cpu[True]:.2f}x")
    if not same:
        raise SystemExit("outputs differ between roi_decode on and off")


if __name__ == "__main__":
    main()
