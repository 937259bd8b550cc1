"""Channel-first resize (CHW / CDHW, each channel resized as a 1-channel image or volume) against
the alternative it replaces: transpose to HWC / DHWC, resize interleaved, transpose back. Both
pipelines run in one process on the same batches, synchronously (exec_pipelined=False,
exec_async=False: a run() is the whole batch), alternating batch by batch.

    PYTHONPATH=python .venv/bin/python benchmarks/channel_first_resize.py [--threads 2] [--batch 8]
        [--iters 15] [--repeat 3]

Cases: uint8 CDHW volumes of 1, 2, 3 and 4 channels (96x128x128 -> 80x112x112, linear,
antialiased) and float32 CDHW (2 channels), and uint8 CHW images (3x480x640 -> 224x224). Reported
per case: the median wall time per batch of each pipeline over --iters batches (after one untimed
batch), the median of --repeat such runs, and the ratio planar / transpose (below 1: planar faster).
The outputs are checked against each other first (float32 within 1e-5, uint8 within 1 level).
"""
import argparse
import statistics
import time

import numpy as np

import sluice
from sluice import fn, types

CASES = [
    # (name, per-sample channel-first shape, dtype, size)
    ("CDHW u8 C=1 96x128x128->80x112x112", (1, 96, 128, 128), np.uint8, (80, 112, 112)),
    ("CDHW u8 C=2", (2, 96, 128, 128), np.uint8, (80, 112, 112)),
    ("CDHW u8 C=3", (3, 96, 128, 128), np.uint8, (80, 112, 112)),
    ("CDHW u8 C=4", (4, 96, 128, 128), np.uint8, (80, 112, 112)),
    ("CDHW f32 C=2", (2, 96, 128, 128), np.float32, (80, 112, 112)),
    ("CHW u8 C=3 480x640->224x224", (3, 480, 640), np.uint8, (224, 224)),
    ("CHW u8 C=2", (2, 480, 640), np.uint8, (224, 224)),
    ("CHW u8 C=4", (4, 480, 640), np.uint8, (224, 224)),
    ("CHW f32 C=3", (3, 480, 640), np.float32, (224, 224)),
    ("CHW u8 C=3 224x224->480x640", (3, 224, 224), np.uint8, (480, 640)),
]


def pipelines(shape, dtype, size, batch, threads):
    rng = np.random.default_rng(7)
    if dtype == np.uint8:
        data = [rng.integers(0, 256, shape).astype(np.uint8) for _ in range(batch)]
    else:
        data = [rng.normal(size=shape).astype(np.float32) for _ in range(batch)]
    layout = "CDHW" if len(shape) == 4 else "CHW"
    to_last = [1, 2, 3, 0] if len(shape) == 4 else [1, 2, 0]
    to_first = [3, 0, 1, 2] if len(shape) == 4 else [2, 0, 1]

    def build(planar):
        pipe = sluice.Pipeline(batch_size=batch, num_threads=threads, seed=1, exec_pipelined=False, exec_async=False)
        with pipe:
            x = fn.external_source(source=lambda: data, layout=layout)
            if planar:
                y = fn.resize(x, size=size)
            else:
                y = fn.transpose(fn.resize(fn.transpose(x, perm=to_last), size=size), perm=to_first)
            pipe.set_outputs(y)
        pipe.build()
        return pipe
    return build(True), build(False)


def check(a, b):
    a = [np.array(a.at(i)) for i in range(len(a))]
    b = [np.array(b.at(i)) for i in range(len(b))]
    for x, y in zip(a, b):
        assert x.shape == y.shape and x.dtype == y.dtype
        tol = 1 if x.dtype == np.uint8 else 1e-5
        assert np.abs(x.astype(np.float64) - y.astype(np.float64)).max() <= tol


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"threads={a.threads} batch={a.batch} iters={a.iters} repeat={a.repeat}")
    print(f"{'case':40s} {'planar ms':>10s} {'transpose ms':>13s} {'ratio':>6s}")
    for name, shape, dtype, size in CASES:
        planar, transposed = pipelines(shape, dtype, size, a.batch, a.threads)
        (p0,), (t0,) = planar.run(), transposed.run()
        check(p0, t0)
        runs_p, runs_t = [], []
        for _ in range(a.repeat):
            tp, tt = [], []
            for _ in range(a.iters):
                for pipe, times in ((planar, tp), (transposed, tt)):
                    s = time.perf_counter()
                    pipe.run()
                    times.append(time.perf_counter() - s)
            runs_p.append(statistics.median(tp))
            runs_t.append(statistics.median(tt))
        mp, mt = statistics.median(runs_p) * 1e3, statistics.median(runs_t) * 1e3
        print(f"{name:40s} {mp:10.2f} {mt:13.2f} {mp / mt:6.2f}", flush=True)


if __name__ == "__main__":
    main()
