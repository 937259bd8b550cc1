"""The train recipe (sluice bench's "train": decoders.image_random_crop -> resize(224, 224) ->
crop_mirror_normalize(float, CHW, random mirror)) with the decoder's scaled_decode off and on, side by
side in one run.

    PYTHONPATH=python .venv/bin/python benchmarks/scaled_roi_decode.py [--data sample_data_hires]
        [--threads 2] [--batch 8] [--epochs 5]

The high-resolution set: scripts/make_sample_data.sh --hires sample_data_hires (64 photographs of
12 MP). Each epoch runs the data once (readers.file, in order) through a new pipeline of each setting,
the two alternating, same seed (so the same crop windows), the first batch untimed (it fills the
prefetch queue); reported: per setting the median over epochs of
the wall time per batch, the process's CPU time per batch (robust to other load on a shared
machine) and the decoder's mean time per batch (executor_statistics), the ratios off / on, and the
PSNR of the uint8 224x224 crops (before normalization) of the two settings over one epoch: median
and worst.
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


def make(files, scaled, batch, threads, uint8=False):
    pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=0, device_id=None)
    with pipe:
        jpegs, labels = fn.readers.file(files=files, name="Reader")
        images = fn.decoders.image_random_crop(jpegs, output_type=types.RGB, scaled_decode=scaled, name="decode")
        images = fn.resize(images, resize_x=224, resize_y=224, name="resize")
        if uint8:
            pipe.set_outputs(images)
        else:
            mirror = fn.random.coin_flip(probability=0.5)
            images = fn.crop_mirror_normalize(images, dtype=types.FLOAT, output_layout="CHW", crop=(224, 224),
                                              mean=MEAN, std=STD, mirror=mirror, name="cmn")
            pipe.set_outputs(images, labels)
    pipe.build()
    return pipe


def epoch(pipe, n_batches):
    """Wall and CPU (this process, all threads) ms per batch, and the decoder's mean ms per batch."""
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n_batches):
        out = pipe.run()
        np.asarray(out[0].as_array())
    ms = (time.perf_counter() - t0) * 1000 / n_batches
    cpu_ms = (time.process_time() - c0) * 1000 / n_batches
    return ms, cpu_ms, pipe.executor_statistics()["decode"]["mean_batch_ms"]


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * math.log10(255.0 ** 2 / mse)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap.add_argument("--data", default=os.environ.get("SLUICE_HIRES_DATA", os.path.join(root, "sample_data_hires")))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=5)
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.data, "train", "*", "*.jpg")))
    if not files:
        raise SystemExit(f"no JPEGs under {args.data}/train (scripts/make_sample_data.sh --hires DIR makes them)")
    n_batches = len(files) // args.batch
    if n_batches < 3:
        raise SystemExit("need at least three batches of files")

    # Accuracy: one epoch of uint8 crops each way (same seed, same windows).
    crops = {}
    for scaled in (False, True):
        pipe = make(files, scaled, args.batch, args.threads, uint8=True)
        crops[scaled] = [np.array(a) for _ in range(n_batches) for a in pipe.run()[0]]
        del pipe
    values = [psnr(a, b) for a, b in zip(crops[False], crops[True])]
    reduced = sum(math.isfinite(v) for v in values)

    # One pipeline per epoch and setting, alternating, the previous one deleted first: a pipeline kept
    # alive refills its prefetch queue in the background, which would be timed in the other's epoch.
    results = {False: [], True: []}
    for _ in range(args.epochs):
        for scaled in (False, True):
            pipe = make(files, scaled, args.batch, args.threads)
            pipe.run()  # warm-up: fills the prefetch queue
            results[scaled].append(epoch(pipe, n_batches - 1))
            del pipe
    h, w = np.median([[int(x) for x in _jpeg_size(f)] for f in files], axis=0)
    print(f"{len(files)} images (median {w:.0f}x{h:.0f}), batch {args.batch}, {args.threads} threads, "
          f"{args.epochs} epochs of {n_batches} batches, the first untimed (medians)")
    med, cpu = {}, {}
    for scaled in (False, True):
        med[scaled] = statistics.median(r[0] for r in results[scaled])
        cpu[scaled] = statistics.median(r[1] for r in results[scaled])
        dec = statistics.median(r[2] for r in results[scaled])
        print(f"  scaled_decode={str(scaled):5}  {med[scaled]:8.1f} ms/batch wall "
              f"({args.batch * 1000 / med[scaled]:6.1f} img/s), {cpu[scaled]:8.1f} ms/batch CPU, decode {dec:8.1f} ms")
    print(f"  speed-up (off / on): wall {med[False] / med[True]:.2f}x, CPU {cpu[False] / cpu[True]:.2f}x")
    finite = [v for v in values if math.isfinite(v)] or [math.inf]
    print(f"  PSNR on / off after the resize to 224 (uint8), {len(values)} crops, {reduced} decoded at a reduced "
          f"scale: median {statistics.median(values):.2f} dB (of those {reduced}: {statistics.median(finite):.2f} dB), "
          f"worst {min(values):.2f} dB")


def _jpeg_size(path):
    from PIL import Image
    with Image.open(path) as im:  # reads the header only
        return im.size[1], im.size[0]


if __name__ == "__main__":
    main()
